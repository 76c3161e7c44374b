import BatonApp
import Foundation
import HandoffWire
import Testing
@testable import BatonRuntime

/// The status a running baton shows once its list holds a removal of this machine.
@Suite("Removed from the group")
struct RemovedStateTests {
    @Test("A list that removed this device gives the removed state, by whom and what to do; one that did not, none")
    func removedState() throws {
        let me = DeviceIdentity.random()
        let bob = DeviceIdentity.random()
        var roster = DeviceRoster(own: me.publicIdentity, name: "me", paired: [(bob.publicIdentity, "bob@desk")])
        #expect(Program.removedState(roster) == nil)
        roster.take(Statement(.remove(device: me.publicIdentity.deviceID.bytes), by: bob, at: Date()).bytes)
        let state = try #require(Program.removedState(roster, environment: ["XDG_CONFIG_HOME": "/cfg"]))
        guard case .removed(let reason) = state else {
            Issue.record("not removed: \(state)")
            return
        }
        #expect(reason.hasPrefix("by bob@desk; no machine hears this one. To come back, move the identity aside here"), "\(reason)")
        #expect(reason.contains("/cfg/baton/identity.key"))
        #expect(state.label == "removed from the group")
    }
}
