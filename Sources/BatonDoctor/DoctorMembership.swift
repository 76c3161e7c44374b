import BatonFiles
import BatonMembership
import FoundationEssentials
import Handoff
import HandoffWire

/// `baton doctor`'s first check: this machine's identity and device list, read from its files
/// and never written (doctor makes no identity). Every other command refuses to run with an
/// unusable `identity.key` or `devices.json`, so doctor says so first; and a machine that was
/// removed from the group, or that lists no one, hears no one whatever the network does.
/// What it read builds the membership listening opens datagrams with (`membership(_:keys:)`).
package enum DoctorMembership {
    package static let name = "identity and devices"

    /// What the check read: the identity and the list.
    package struct Files: Sendable {
        package var identity: DeviceIdentity
        package var snapshot: DeviceList.Snapshot

        package init(identity: DeviceIdentity, snapshot: DeviceList.Snapshot) {
            self.identity = identity
            self.snapshot = snapshot
        }

        /// The list these files make, as a running Baton builds it.
        package var roster: DeviceRoster {
            MembershipStore.roster(identity: identity, name: "doctor", snapshot: snapshot)
        }
    }

    /// Reads `identity.key` and `devices.json` where Baton keeps them.
    package static func check(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (finding: DoctorFinding, files: Files?) {
        let identityPath = DeviceIdentity.defaultPath(environment: environment)
        let identity: DeviceIdentity?
        do {
            identity = try DeviceIdentity.read(path: identityPath)
        } catch {
            return (DoctorFinding(name: name, status: .problem, detail: "\(identityPath) cannot be used", fix: error.description), nil)
        }
        guard let identity else {
            return (DoctorFinding(
                name: name, status: .problem,
                detail: "this machine has no identity yet (\(identityPath)), so it is paired with no one",
                fix: "pair it with a machine of the group: `baton pair` there, `baton pair --join` here "
                    + "(Baton makes the identity on first use)"), nil)
        }
        let list = DeviceList.standard(environment: environment)
        let snapshot: DeviceList.Snapshot
        do {
            snapshot = try list.snapshot()
        } catch {
            return (DoctorFinding(name: name, status: .problem, detail: "\(list.path) cannot be used", fix: error.description), nil)
        }
        let files = Files(identity: identity, snapshot: snapshot)
        return (finding(files.roster, environment: environment), files)
    }

    /// What a list says of this machine: removed, alone, or with how many others.
    package static func finding(_ roster: DeviceRoster, environment: [String: String] = [:]) -> DoctorFinding {
        let fingerprint = roster.own.deviceID.fingerprint
        if let removal = roster.ownRemoval {
            return DoctorFinding(
                name: name, status: .problem, detail: removedDetail(removal, in: roster),
                fix: "a removed identity cannot come back: " + DeviceIdentity.removedRemedy(environment: environment))
        }
        let others = roster.listed.count - 1
        if others == 0 {
            return DoctorFinding(
                name: name, status: .warning,
                detail: "identity \(fingerprint); no other device is listed, so only Baton programs of this machine "
                    + "are heard until it is paired (`baton pair`)")
        }
        return DoctorFinding(
            name: name, status: .ok,
            detail: "identity \(fingerprint); \(others == 1 ? "1 other device" : "\(others) other devices") listed (`baton devices`)")
    }

    /// "this machine was removed from the group by alice@laptop at 2027-01-15 08:00 UTC: …"
    package static func removedDetail(_ removal: Statement, in roster: DeviceRoster) -> String {
        let by = roster.name(of: removal.by).map { PeerText.visible($0) } ?? "a device of the group"
        return "this machine was removed from the group by \(by) (\(removal.at.formatted(Date.ISO8601FormatStyle()))): "
            + "it still hears the others under the old key for a while, but none of them hears it"
    }

    /// The membership listening opens datagrams with: this machine's identity and list, with `keys`.
    package static func membership(_ files: Files, keys: GroupKeys) -> Membership {
        Membership(identity: files.identity, keys: keys, roster: files.roster)
    }
}
