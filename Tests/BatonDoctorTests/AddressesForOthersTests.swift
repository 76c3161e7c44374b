import BatonDoctor
import Testing

@Suite("How another machine names this one")
struct AddressesForOthersTests {
    @Test("Up interfaces' IPv4 addresses, LAN before VPN before virtual; no loopback, nothing down; HOST when none")
    func order() {
        let interfaces = [
            DoctorInterface(name: "lo", up: true, multicast: false, loopback: true, ipv4: "127.0.0.1"),
            DoctorInterface(name: "docker0", up: true, multicast: true, loopback: false, ipv4: "172.17.0.1"),
            DoctorInterface(name: "wg0", up: true, multicast: false, loopback: false, ipv4: "10.8.0.2"),
            DoctorInterface(name: "eth1", up: false, multicast: true, loopback: false, ipv4: "192.168.9.9"),
            DoctorInterface(name: "eth0", up: true, multicast: true, loopback: false, ipv4: "192.168.1.20"),
            DoctorInterface(name: "eth2", up: true, multicast: true, loopback: false, ipv4: nil),
        ]
        #expect(DoctorInterface.addressesForOthers(interfaces) == ["192.168.1.20", "10.8.0.2", "172.17.0.1"])
        #expect(DoctorInterface.addressForOthers(interfaces) == "192.168.1.20")
        #expect(DoctorInterface.addressForOthers(Array(interfaces.prefix(1))) == "HOST")
    }
}
