import BatonFiles
import BatonMembership
import Foundation
import Handoff
import HandoffWire

/// This machine's membership for a given group key, read from its files and never written:
/// the identity (made on first use), the devices it paired with as the list's roots, and the
/// statements kept. For `baton doctor`, which listens with the key it checked; a program that
/// runs a center uses `MembershipStore`, which also stores and reloads.
package enum DoctorMembership {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package static func load(
        groupKey: GroupKey, name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(Failure) -> Membership {
        let identity: DeviceIdentity
        let snapshot: DeviceList.Snapshot
        do {
            identity = try DeviceIdentity.load(environment: environment).identity
        } catch {
            throw Failure(description: error.description)
        }
        do {
            snapshot = try DeviceList.standard(environment: environment).snapshot()
        } catch {
            throw Failure(description: error.description)
        }
        let roster = MembershipStore.roster(identity: identity, name: name, snapshot: snapshot)
        return Membership(identity: identity, keys: GroupKeys(current: groupKey), roster: roster)
    }
}
