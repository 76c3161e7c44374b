import Handoff
import Testing

@testable import HandoffRelay
@testable import HandoffWire

@Suite("Relay addresses and topics")
struct RelayConfigurationTests {
    @Test("mqtt:// and mqtts:// with and without a port, IPv6 in brackets")
    func parses() throws {
        let plain = try RelayConfiguration("mqtt://broker.example")
        #expect(plain.scheme == .mqtt && plain.host == "broker.example" && plain.port == 1883 && plain.caFile == nil)
        #expect(plain.url == "mqtt://broker.example:1883")
        let tls = try RelayConfiguration("MQTTS://10.0.0.9:9883/", caFile: "/etc/baton/ca.pem")
        #expect(tls.scheme == .mqtts && tls.host == "10.0.0.9" && tls.port == 9883 && tls.caFile == "/etc/baton/ca.pem")
        #expect(try RelayConfiguration("mqtts://b").port == 8883)
        let v6 = try RelayConfiguration("mqtt://[2001:db8::1]:1884")
        #expect(v6.host == "2001:db8::1" && v6.port == 1884 && v6.url == "mqtt://[2001:db8::1]:1884")
    }

    @Test(
        "Bad addresses are refused with what to write instead",
        arguments: [
            ("", RelayConfigurationError.empty),
            ("broker:1883", .noScheme("broker:1883")),
            ("http://broker", .unknownScheme("http://broker", "http")),
            ("mqtt://", .noHost("mqtt://")),
            ("mqtt://:1883", .noHost("mqtt://:1883")),
            ("mqtt://b:0", .badPort("mqtt://b:0", "0")),
            ("mqtt://b:65536", .badPort("mqtt://b:65536", "65536")),
            ("mqtt://b:x", .badPort("mqtt://b:x", "x")),
            ("mqtt://b/topic", .extraParts("mqtt://b/topic")),
            ("mqtt://u:p@b", .credentials("mqtt://…@b")),
            ("mqtt://2001:db8::1", .badHost("mqtt://2001:db8::1")),
        ])
    func refuses(_ text: String, _ expected: RelayConfigurationError) {
        #expect(throws: expected) { try RelayConfiguration(text) }
        #expect(expected.description.contains("mqtt://") || expected.description.contains("1 to 65535"))
    }

    @Test("--relay-ca belongs to mqtts:// only")
    func caNeedsTLS() {
        #expect(throws: RelayConfigurationError.caWithoutTLS("ca.pem")) { try RelayConfiguration("mqtt://b", caFile: "ca.pem") }
        #expect(RelayConfigurationError.caWithoutTLS("ca.pem").description.contains("mqtts://HOST[:PORT]"))
    }

    @Test("A relay file holds one address; comments and blank lines are ignored")
    func relayFile() throws {
        #expect(try RelayFile(parsing: "# office broker\n\n  mqtt://b:1884  # lab\n", path: "relay").address?.value == "mqtt://b:1884")
        #expect(try RelayFile(parsing: "# none yet\n", path: "relay").address == nil)
        #expect(throws: RelayFileError.severalAddresses("relay")) {
            try RelayFile(parsing: "mqtt://a\nmqtt://b\n", path: "relay")
        }
    }

    @Test("Topic check values for the golden group key 00…1f and sender a0…af (PROTOCOL.md section 16)")
    func topicCheckValues() throws {
        let topics = RelayTopics(groupKey: GroupKey(bytes: Array(0...31))!)
        #expect(topics.root == "baton/c3d3ebb2bda2dfd449c67f05dc4227b6")
        let sender = try #require(SenderID(bytes: Array(0xA0...0xAF)))
        #expect(topics.senderTopic(sender) == "e0fad7b4be8a2694")
        #expect(topics.datagrams == "baton/c3d3ebb2bda2dfd449c67f05dc4227b6/d")
        #expect(topics.activity("e0fad7b4be8a2694") == "baton/c3d3ebb2bda2dfd449c67f05dc4227b6/a/e0fad7b4be8a2694")
        #expect(RelayTopics(groupKey: GroupKey(bytes: Array(1...32))!).root != topics.root)
    }

    @Test("Topics of the group parse back; others, and malformed ids, do not")
    func parsing() {
        let topics = RelayTopics(groupKey: GroupKey(bytes: Array(0...31))!)
        let (server, id) = ("e0fad7b4be8a2694", "0123456789abcdef")
        #expect(topics.parse(topics.datagrams) == .datagrams)
        #expect(topics.parse(topics.activity(server)) == .activity(sender: server))
        #expect(topics.parse(topics.streamToServer(server: server, connection: id)) == .streamToServer(server: server, connection: id))
        #expect(topics.parse(topics.streamToClient(server: server, connection: id)) == .streamToClient(server: server, connection: id))
        #expect(topics.parse(topics.activity("E0FAD7B4BE8A2694")) == nil)
        #expect(topics.parse(topics.activity("e0fad7")) == nil)
        #expect(topics.parse(topics.root + "/x") == nil)
        #expect(topics.parse("baton/00000000000000000000000000000000/d") == nil)
        let header = DatagramHeader(
            kind: .query, keyID: KeyID(bytes: [1, 2, 3, 4])!, senderID: SenderID(bytes: Array(0xA0...0xAF))!, sequence: 1
        ).bytes
        #expect(topics.senderTopic(ofDatagram: header + Array(repeating: 0, count: 64 + 16)) == server)
        #expect(topics.senderTopic(ofDatagram: header + Array(repeating: 0, count: 64 + 15)) == nil)  // shorter than header, signature and tag
    }
}
