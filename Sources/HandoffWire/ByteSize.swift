import FoundationEssentials

/// Byte counts as people read them (bytes, KB, MB), for the wire's messages and `HandoffError`.
package enum ByteSize {
    /// `512 bytes`, `40 KB`, `1.5 MB`, `16 MB` (powers of 1,024, as people read file sizes).
    package static func text(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        let kib = Double(bytes) / 1024
        if kib < 1024 { return kib < 10 ? PlainText.oneDecimal(kib) + " KB" : "\(Int(kib.rounded())) KB" }
        let mib = kib / 1024
        return mib < 10 && mib != mib.rounded() ? PlainText.oneDecimal(mib) + " MB" : "\(Int(mib.rounded())) MB"
    }
}
