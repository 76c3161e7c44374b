import BatonFiles
import Foundation
import Handoff
import HandoffWire

/// This machine's membership for a group key, from its files: the identity (made on first use)
/// and the devices it paired with as the list's roots. Statements kept on disk come with the
/// membership store; until then a program hears itself and the devices it paired with.
public enum InterimMembership {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func load(
        groupKey: GroupKey, name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(Failure) -> Membership {
        let identity: DeviceIdentity
        do {
            identity = try DeviceIdentity.load(environment: environment).identity
        } catch {
            throw Failure(description: error.description)
        }
        var roster = DeviceRoster(own: identity.publicIdentity, name: name)
        do {
            for entry in try DeviceList.standard(environment: environment).entries() {
                if let device = entry.publicIdentity, device != identity.publicIdentity {
                    roster.addPaired(device, name: entry.name)
                }
            }
        } catch {
            throw Failure(description: error.description)
        }
        return Membership(identity: identity, keys: GroupKeys(current: groupKey), roster: roster)
    }
}
