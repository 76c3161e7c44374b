/// What a file on disk was when the editor read or last saved it: its size, its modification
/// time and a digest of its bytes. Ctrl-S replaces the file without asking only while the disk
/// still matches; a file another program changed meanwhile is asked about.
public struct FileStamp: Equatable, Sendable {
    /// The size in bytes.
    public var size: Int
    /// The modification time, seconds and nanoseconds since 1970.
    public var modifiedSeconds: Int
    public var modifiedNanoseconds: Int
    /// FNV-1a over the bytes (a check for a changed file, not a cryptographic digest).
    public var digest: UInt64

    public init(size: Int, modifiedSeconds: Int, modifiedNanoseconds: Int, digest: UInt64) {
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.digest = digest
    }

    /// FNV-1a, 64 bits, of `bytes`.
    public static func digest(of bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
