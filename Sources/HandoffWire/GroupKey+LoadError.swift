import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension GroupKey {

    /// Why a key could not be had.
    public enum LoadError: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(source: String, reason: String)
        case unreadable(path: String, reason: String)
        case cannotCreate(path: String, reason: String)
        /// The key file may be read or changed by others: its permission bits are `mode`.
        case exposed(path: String, mode: UInt32)
        /// The key file belongs to `owner`, not to the effective user `user`; `mode` as above.
        case foreignOwner(path: String, owner: UInt32, user: UInt32, mode: UInt32)

        public var description: String {
            switch self {
            case .malformed(let source, let reason) where source == "BATON_KEY":
                // `baton key --new` writes the key file, which BATON_KEY would still take the place of.
                "BATON_KEY holds no usable group key: \(reason). BATON_KEY takes the place of the key file; unset it (unset BATON_KEY) to use the key file, or set it to what `baton key` prints on a machine of the group (44 characters of base64)."
            case .malformed(let source, let reason):
                "The group key in \(source) is not usable: \(reason). A key is 32 random bytes in standard base64 (44 characters); make one with `baton key --new`, or take the group's: pairing gives it (`baton pair` on a machine of the group, `baton pair --join` here), and a machine paired already can copy it (paste what `baton key` prints there into `baton key --import -` here)."
            case .unreadable(let path, let reason):
                "Cannot read the group key file \(path): \(reason)."
            case .cannotCreate(let path, let reason):
                "Cannot create the group key file \(path): \(reason); set BATON_KEY or pass --key-file."
            case .exposed(let path, let mode):
                "The group key file \(path) is \(Self.exposure(mode)) (mode \(Self.octal(mode))); run: chmod 600 \(Self.quoted(path))"
            case .foreignOwner(let path, let owner, let user, let mode):
                "The group key file \(path) belongs to another user (\(Self.name(owner))), not to you (\(Self.name(user))); run: "
                    + (user == 0 ? "" : "sudo ") + "chown \(Self.userName(user) ?? String(user)) \(Self.quoted(path))"
                    + (mode & 0o077 == 0 ? "" : " && chmod 600 \(Self.quoted(path))")
            }
        }

        /// Who besides the owner may do what: "readable by others", "writable by others".
        package static func exposure(_ mode: UInt32) -> String {
            if mode & 0o044 != 0 { return "readable by others" }
            if mode & 0o022 != 0 { return "writable by others" }
            return "open to others"
        }

        /// 0o644 as "0644".
        package static func octal(_ mode: UInt32) -> String {
            let digits = String(mode & 0o7777, radix: 8)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }

        /// A path as one shell word: in single quotes, any single quote in it spelled '\''.
        package static func quoted(_ path: String) -> String {
            "'" + path.replacing("'", with: "'\\''") + "'"
        }

        /// "uid 1000, bob", or "uid 1234" for a uid without a name.
        package static func name(_ uid: UInt32) -> String {
            "uid \(uid)" + (userName(uid).map { ", \($0)" } ?? "")
        }

        /// The login name of `uid` (getpwuid_r: other threads may look users up too), or nil.
        package static func userName(_ uid: UInt32) -> String? {
            var buffer = [CChar](repeating: 0, count: 4096)
            return buffer.withUnsafeMutableBufferPointer { storage -> String? in
                var entry = passwd()
                var found: UnsafeMutablePointer<passwd>?
                guard let base = storage.baseAddress, getpwuid_r(uid_t(uid), &entry, base, storage.count, &found) == 0,
                    found != nil, let name = entry.pw_name
                else { return nil }
                return String(cString: name)
            }
        }
    }}
