import Foundation
import HandoffWire
import Testing

@Suite("Who this peer is")
struct PeerInfoTests {
    @Test("USER and LOGNAME unset (root in a container): the account name from the password database, not 'user'")
    func accountName() {
        #expect(PeerInfo.localUserName(environment: [:], accountName: { "root" }) == "root")
        #expect(PeerInfo.localUserName(environment: ["USER": "", "LOGNAME": ""], accountName: { "build" }) == "build")
        #expect(PeerInfo.localUserName(environment: ["USER": "alice", "LOGNAME": "bob"], accountName: { "root" }) == "alice")
        #expect(PeerInfo.localUserName(environment: ["LOGNAME": "bob"], accountName: { "root" }) == "bob")
        #expect(PeerInfo.localUserName(environment: [:], accountName: { nil }) == "user")
        // This process's own account, as the password database has it.
        let own = PeerInfo.effectiveAccountName()
        #expect(own != nil && own?.isEmpty == false)
        #expect(PeerInfo.localUserName(environment: [:]) == own)
    }
}
