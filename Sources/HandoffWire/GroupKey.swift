import FoundationEssentials

/// The 32-byte secret that machines which should see each other share.
///
/// Written as standard base64 (44 characters). Found, in order: an explicit key file
/// (`--key-file`), `BATON_KEY`, then `$XDG_CONFIG_HOME/baton/group.key`
/// (default `~/.config/baton/group.key`), which is created with mode 0600 on first use.
///
/// A key file is read only when it is a regular file of this user (the effective uid) that
/// nobody else may read or change (no group or other bits), as ssh treats a private key; the
/// refusal gives the `chmod` or `chown` that fixes it. Baton's own folder (`…/baton`) is made
/// 0700 and put back to 0700 whenever Baton reads or writes the default key there.
///
/// The key files themselves are `BatonFiles` (`GroupKey+Storage.swift`); this is the value.
public struct GroupKey: Equatable, Sendable {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Parses the base64 form; surrounding white space is ignored.
    public init(base64 text: String, source: String = "the key") throws(LoadError) {
        let trimmed = text.trimmed()
        guard let data = Data(base64Encoded: trimmed) else {
            throw .malformed(source: source, reason: "it is not standard base64")
        }
        guard data.count == 32 else {
            throw .malformed(source: source, reason: "it decodes to \(data.count) bytes, not 32")
        }
        bytes = Array(data)
    }

    /// A fresh random key.
    public static func random() -> GroupKey {
        var generator = SystemRandomNumberGenerator()
        return GroupKey(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// The 44-character base64 form.
    public var base64: String { Data(bytes).base64EncodedString() }
}
