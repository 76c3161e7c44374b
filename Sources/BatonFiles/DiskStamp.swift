#if canImport(Glibc)
import Glibc
#endif

/// A file's inode, size and modification time: what tells a program that another one wrote the
/// file since it last read or wrote it, for one `stat`. An atomic write (a rename) always
/// changes the inode, so a change is seen even within one tick of the modification time. Nil
/// (from `of(_:)`) when nothing is at the path. The editor's stamp of what it read
/// (`BatonApp.FileStamp`) adds a digest of the bytes; this one never reads them.
public struct DiskStamp: Equatable, Sendable {
    public let inode: UInt64
    public let size: Int64
    public let seconds: Int64
    public let nanoseconds: Int64

    /// The stamp of what is at `path` now (its target when a link), or nil.
    public static func of(_ path: String) -> DiskStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return DiskStamp(
            inode: UInt64(info.st_ino), size: Int64(info.st_size),
            seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
    }
}
