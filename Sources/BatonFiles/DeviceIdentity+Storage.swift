import FoundationEssentials
import HandoffWire

/// Where this machine's identity is kept: `identity.key` beside the default group key, under the
/// group key's rules (docs/PROTOCOL.md, section 3, "Device identity"). The identity itself is
/// `DeviceIdentity` in `HandoffWire`.
extension DeviceIdentity {
    /// Why the identity could not be had; the description is the sentence to print, with what fixes it.
    public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// `$XDG_CONFIG_HOME/baton/identity.key`, or `~/.config/baton/identity.key`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        PlainText.path(GroupKey.defaultFolder(environment: environment), "identity.key")
    }

    /// This machine's identity, made (0600, in a 0700 folder) when there is none yet.
    /// `created` says whether it was made just now.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(FileError) -> (identity: DeviceIdentity, path: String, created: Bool) {
        let path = defaultPath(environment: environment)
        if let identity = try read(path: path) {
            _ = try? PrivateFile.keepPrivate(folder: GroupKey.defaultFolder(environment: environment))
            return (identity, path, false)
        }
        let identity = DeviceIdentity.random()
        do throws(PrivateFile.Problem) {
            try PrivateFile.write(Array((identity.base64 + "\n").utf8), to: path, replace: false, privateFolder: true)
        } catch .exists {
            // Another Baton made it first: use that one.
            guard let theirs = try read(path: path) else {
                throw FileError(description: PrivateFile.Problem.unreadable(reason: "it vanished").sentence(noun, path: path))
            }
            return (theirs, path, false)
        } catch {
            throw FileError(description: error.sentence(noun, path: path) + " Baton needs it to pair; check that folder.")
        }
        return (identity, path, true)
    }

    /// The identity in the file at `path`, or nil when there is none.
    public static func read(path: String) throws(FileError) -> DeviceIdentity? {
        let bytes: [UInt8]?
        do throws(PrivateFile.Problem) {
            bytes = try PrivateFile.read(path: path, limit: 4096)
        } catch {
            throw FileError(description: error.sentence(noun, path: path))
        }
        guard let bytes else { return nil }
        do throws(Malformed) {
            return try DeviceIdentity(base64: String(decoding: bytes, as: UTF8.self), source: path)
        } catch {
            throw FileError(description: """
                The identity file \(path) is not usable: \(error.reason). It holds 32 random bytes in standard \
                base64 (44 characters). Move it aside (mv \(GroupKey.LoadError.quoted(path)) \
                \(GroupKey.LoadError.quoted(path + ".bad"))) and Baton makes a new identity; machines paired \
                with the old one must then pair again.
                """)
        }
    }

    static let noun = "identity file"

    /// What to do about a machine whose identity was removed from the group ("move the identity
    /// aside …, then pair again"): a removal is for good (docs/PROTOCOL.md, section 17), so the machine comes back only under a new identity.
    /// `machine` names it when it is another machine (its `identity.key` is then shown as on this
    /// one's layout); nil means this machine.
    public static func removedRemedy(
        machine: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let path = machine == nil ? defaultPath(environment: environment) : "~/.config/baton/identity.key"
        let quoted = machine == nil ? GroupKey.LoadError.quoted(path) : path
        let aside = machine == nil ? GroupKey.LoadError.quoted(path + ".removed") : path + ".removed"
        let place = machine.map { "on \($0)" } ?? "here"
        let pairing = machine == nil
            ? "(`baton pair` on a machine of the group, `baton pair --join` here)"
            : "(`baton pair` here, `baton pair --join` there)"
        return "move the identity aside \(place) (mv \(quoted) \(aside)) "
            + "so that Baton makes a new one, then pair again \(pairing)"
    }
}
