import FoundationEssentials
import Handoff
#if canImport(Glibc)
import Glibc
import HandoffWire
import BatonFiles
#endif

/// `baton doctor`'s key check: which key Baton would use, and whether it may use it. Unlike
/// `GroupKey.load`, it never creates a key: a missing key is a finding.
package enum KeyCheck {
    package static let name = "group key"

    /// The finding and, when the key is usable, the key (to read what peers send).
    package static func check(
        keyFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (finding: DoctorFinding, key: GroupKey?) {
        let copy = "or get the group's key from another machine: `baton pair` there, `baton pair --join` here"
        func refused(_ error: GroupKey.LoadError, _ what: String) -> (DoctorFinding, GroupKey?) {
            (DoctorFinding(name: name, status: .problem, detail: what, fix: error.description), nil)
        }
        if let keyFile {
            return fromFile(keyFile, copy: copy)
        }
        if let text = environment["BATON_KEY"], !text.isEmpty {
            do {
                let key = try GroupKey(base64: text, source: "BATON_KEY")
                return (DoctorFinding(name: name, status: .ok, detail: "from BATON_KEY (it takes the place of the key file)"), key)
            } catch {
                return refused(error, "BATON_KEY is not a usable key")
            }
        }
        return fromFile(GroupKey.defaultPath(environment: environment), copy: copy)
    }

    /// Whether the key doctor checks comes from `BATON_KEY` (no `--key-file`, the variable set).
    package static func fromEnvironment(keyFile: String?, environment: [String: String]) -> Bool {
        keyFile == nil && !(environment["BATON_KEY"] ?? "").isEmpty
    }

    /// The key before the last change, beside the key file (`….old`); none under `BATON_KEY`,
    /// or when that file is absent or unusable.
    package static func previous(keyFile: String?, environment: [String: String]) -> GroupKey? {
        guard !fromEnvironment(keyFile: keyFile, environment: environment) else { return nil }
        let path = keyFile ?? GroupKey.defaultPath(environment: environment)
        return (try? GroupKey.readIfPresent(path: path + ".old")) ?? nil
    }

    private static func fromFile(_ path: String, copy: String) -> (DoctorFinding, GroupKey?) {
        var info = stat()
        if lstat(path, &info) != 0, errno == ENOENT {
            return (DoctorFinding(
                name: name, status: .problem, detail: "no group key at \(path)",
                fix: "make one with `baton key` (then `baton pair` on this machine and `baton pair --join` on the next), \(copy)"), nil)
        }
        do {
            let key = try GroupKey.read(path: path)
            return (DoctorFinding(name: name, status: .ok, detail: "\(path), mode 0600, yours"), key)
        } catch {
            let what: String
            switch error {
            case .exposed: what = "\(path) may be read or changed by others, so Baton refuses it"
            case .foreignOwner: what = "\(path) belongs to another user, so Baton refuses it"
            case .malformed: what = "\(path) does not hold a usable key"
            default: what = "\(path) cannot be read"
            }
            return (DoctorFinding(name: name, status: .problem, detail: what, fix: error.description), nil)
        }
    }
}
