import BatonFiles
import BatonMembership
import FoundationEssentials
import HandoffWire

/// What the shell offers after `baton devices remove <Tab>`: the names `baton devices` lists,
/// read from devices.json as that command reads it, without the removed ones. Completion never
/// writes: with no identity file yet (which `baton devices` would make) the paired entries'
/// names alone are offered, and an unreadable list offers nothing.
public enum DeviceCompletion {
    /// The names that start with `prefix`, in the order listed, each once. A name that would not
    /// print as typed (control characters, spaces) is left out: such a device is named by its
    /// fingerprint.
    public static func names(prefix: String = "", environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        guard let snapshot = try? DeviceList.standard(environment: environment).snapshot() else { return [] }
        let identityPath = DeviceIdentity.defaultPath(environment: environment)
        let names: [String]
        if let identity = (try? DeviceIdentity.read(path: identityPath)) ?? nil {
            let roster = MembershipStore.roster(identity: identity, name: "", snapshot: snapshot)
            names = DeviceText.rows(snapshot, roster: roster).filter { !$0.removed }.map(\.name)
        } else {
            names = snapshot.devices.map(\.name)
        }
        var seen = Set<String>()
        return names.filter { name in
            !name.isEmpty && name.hasPrefix(prefix) && PeerText.visible(name) == name
                && !name.contains(where: \.isWhitespace) && seen.insert(name).inserted
        }
    }
}
