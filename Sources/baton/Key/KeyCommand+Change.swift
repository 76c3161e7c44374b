import ArgumentParser
import FoundationEssentials
import Handoff
import BatonMembership
import HandoffCLI
import HandoffWire
import BatonFiles

extension KeyCommand {
    /// `baton key --new` (no `removing`) and `baton devices remove` (docs/PROTOCOL.md, section
    /// 17, "Removing a device"): the statements and the new key, stored, then sent under the old key.
    static func change(removing target: String?, network: NetworkOptions) async throws {
        let myName = PeerInfo.local(app: "baton", appVersion: Baton.version, name: network.name).name
        let store = MembershipStore(keyFile: network.keyFile, name: myName)
        let loaded = try store.load()
        loaded.notices.forEach(hint)
        let membership = loaded.membership
        let roster = membership.roster
        var removing: DeviceRoster.Device?
        if let target {
            // The names removed devices had, so that removing one again says so.
            var removedNames: [[UInt8]: String] = [:]
            for entry in (try? store.devices.entries()) ?? [] {
                if let id = entry.publicIdentity?.deviceID.bytes, roster.removed.contains(id) { removedNames[id] = entry.name }
            }
            for statement in roster.statements {
                if case .introduce(let device, let name) = statement.content, roster.removed.contains(device.deviceID.bytes) {
                    removedNames[device.deviceID.bytes] = removedNames[device.deviceID.bytes] ?? name
                }
            }
            switch DeviceMatch.find(target, in: roster, removedNames: removedNames) {
            case .found(let device):
                removing = device
            case .own:
                throw CommandFailure("""
                    \(target) is this machine (fingerprint \(roster.own.deviceID.fingerprint)): a machine cannot remove \
                    itself. Run `baton devices remove` on another machine of the group.
                    """)
            case .alreadyRemoved(let fingerprint):
                Console.line("\(PeerText.visible(target)) (fingerprint \(fingerprint)) is removed already; nothing was changed.")
                return
            case .none:
                throw CommandFailure("""
                    No listed machine is called \(target) or has a fingerprint that starts with it; nothing was \
                    changed. `baton devices` lists them.
                    """)
            case .tooFewDigits(let count):
                throw CommandFailure("""
                    No listed machine is called \(target), and \(count) digit\(count == 1 ? " is" : "s are") too few to pick \
                    one by fingerprint: give at least the first \(DeviceMatch.minimumDigits) digits, as `baton devices` \
                    lists them. Nothing was changed.
                    """)
            case .ambiguous(let devices):
                let lines = devices.map { "  \($0.name)  \($0.identity.deviceID.fingerprint)" }.joined(separator: "\n")
                throw CommandFailure("""
                    \(target) fits \(devices.count) machines; nothing was changed:
                    \(lines)
                    Name one by its fingerprint: baton devices remove '\(devices[0].identity.deviceID.fingerprint)'
                    """)
            }
        }
        let oldKey = membership.keys.current
        let change = KeyChange(roster: roster, identity: membership.identity, keys: membership.keys, removing: removing, at: Date())
        let statements = change.statements.map(\.bytes)
        // A key just made by this very command was known to nobody: there is nothing to keep.
        var keys = change.keys
        if case .created = loaded.keySource { keys = GroupKeys(current: change.newKey) }
        let stored = try store.store(keys: keys, statements: statements)
        if target == nil { Console.line(change.newKey.base64) }
        stored.forEach(hint)
        if keys.previous != nil, let path = network.keyFile ?? (loaded.keySource == .environment ? nil : GroupKey.defaultPath()) {
            hint(Self.keptOld(path + ".old", path: path))
        }
        let message: (String) -> Void = target == nil ? { hint($0) } : { Console.line($0) }
        guard !statements.isEmpty else {
            message(change.summary)
            return
        }
        let digest = Statement.setDigest(roster.statements.map(\.bytes) + statements)
        do {
            let endpoint = try await DevicesSender.send(
                statements, digest: digest, identity: membership.identity, under: oldKey, options: network)
            message(change.summary)
            message("Sent under the old key to \(endpoint); Baton programs running here pass it on.")
        } catch {
            message(change.summary.replacing("sent to", with: "stored for"))
            throw error
        }
    }
}
