import Testing
@testable import HandoffMulticast

@Suite("MulticastConfiguration from the environment")
struct MulticastConfigurationTests {
    @Test("An empty environment gives the protocol's defaults")
    func defaults() throws {
        let configuration = try MulticastConfiguration.fromEnvironment([:])
        #expect(configuration == MulticastConfiguration(group: "239.255.77.88", port: 47788, ttl: 1, interface: nil))
        #expect(configuration.loopback)
    }

    @Test("Every variable is read; empty ones keep the default")
    func variables() throws {
        let configuration = try MulticastConfiguration.fromEnvironment([
            "BATON_GROUP": "239.1.2.3", "BATON_PORT": "50000", "BATON_TTL": "0", "BATON_INTERFACE": "eth0",
            "UNRELATED": "x",
        ])
        #expect(configuration == MulticastConfiguration(group: "239.1.2.3", port: 50000, ttl: 0, interface: "eth0"))

        let empty = try MulticastConfiguration.fromEnvironment([
            "BATON_GROUP": "", "BATON_PORT": "", "BATON_TTL": "", "BATON_INTERFACE": "",
        ])
        #expect(empty == MulticastConfiguration())

        let edges = try MulticastConfiguration.fromEnvironment([
            "BATON_GROUP": "224.0.0.251", "BATON_PORT": "65535", "BATON_TTL": "255",
        ])
        #expect(edges.group == "224.0.0.251" && edges.port == 65535 && edges.ttl == 255)
    }

    static let badValues: [(variable: String, value: String)] = [
        ("BATON_GROUP", "10.0.0.1"), ("BATON_GROUP", "240.0.0.1"), ("BATON_GROUP", "223.255.255.255"),
        ("BATON_GROUP", "239.255.77"), ("BATON_GROUP", "239.255.077.88"), ("BATON_GROUP", "239.255.77.256"),
        ("BATON_GROUP", "ff02::1"), ("BATON_GROUP", "baton.local"),
        ("BATON_PORT", "0"), ("BATON_PORT", "65536"), ("BATON_PORT", "-1"), ("BATON_PORT", "+80"),
        ("BATON_PORT", "47788x"), ("BATON_PORT", "99999999999999999999999"),
        ("BATON_TTL", "256"), ("BATON_TTL", "-1"), ("BATON_TTL", "1.5"),
        ("BATON_INTERFACE", "a b"), ("BATON_INTERFACE", "a/b"), ("BATON_INTERFACE", "sixteen-chars-xx"),
    ]

    @Test("A bad value is an error naming the variable and the value", arguments: badValues)
    func badValue(variable: String, value: String) {
        let expected: MulticastConfigurationError =
            switch variable {
            case "BATON_GROUP": .notMulticastGroup(source: variable, value: value)
            case "BATON_PORT": .invalidPort(source: variable, value: value)
            case "BATON_TTL": .invalidTTL(source: variable, value: value)
            default: .invalidInterfaceName(source: variable, value: value)
            }
        #expect(throws: expected) {
            try MulticastConfiguration.fromEnvironment([variable: value])
        }
        #expect(expected.description.hasPrefix("\(variable) is \"\(value)\""))
    }

    @Test("Descriptions say what would work")
    func descriptions() {
        #expect(
            MulticastConfigurationError.invalidPort(source: "BATON_PORT", value: "0").description
                == "BATON_PORT is \"0\", which is not a UDP port; use a whole number from 1 to 65535, e.g. 47788."
        )
        #expect(
            MulticastConfigurationError.notMulticastGroup(source: "--group", value: "10.0.0.1").description
                == "--group is \"10.0.0.1\", which is not an IPv4 multicast address; "
                + "use one from 224.0.0.0 to 239.255.255.255, e.g. 239.255.77.88."
        )
        #expect(
            MulticastError.interfaceNotFound(name: "eth9", available: ["eth0", "lo"]).description
                == "There is no network interface named \"eth9\"; choose one with an IPv4 address "
                + "(eth0, lo) with --interface or BATON_INTERFACE."
        )
        #expect(
            MulticastError.datagramTooLarge(bytes: 70000, limit: 65507).description
                == "A datagram of 70000 bytes is larger than the 65507 bytes UDP can carry; send less."
        )
    }

    @Test("Values set in code are checked too, before anything touches the network")
    func startRefusesABadConfiguration() async {
        #expect(throws: MulticastConfigurationError.invalidTTL(source: "ttl", value: "300")) {
            try MulticastConfiguration(ttl: 300).validated()
        }
        // Validation comes first: no thread, device list or socket is made for this.
        let notMulticast = MulticastConfigurationError.notMulticastGroup(source: "group", value: "10.1.2.3")
        await #expect(throws: MulticastError.invalidConfiguration(notMulticast)) {
            try await MulticastTransport.start(MulticastConfiguration(group: "10.1.2.3"))
        }
        await #expect(throws: MulticastError.invalidConfiguration(.invalidPort(source: "port", value: "0"))) {
            try await MulticastTransport.start(MulticastConfiguration(port: 0))
        }
    }
}
