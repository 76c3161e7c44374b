import ArgumentParser
import Foundation
import BatonFiles
import Handoff
import HandoffCLI
import HandoffMulticast
import HandoffWire

/// `baton pair`: give a new machine this machine's group key, after both screens show the same code.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Share this machine's group key with a new machine: run `baton pair` here, `baton pair --join` there.",
        discussion: """
            Both machines show a six-digit code; when it is the same on both screens and both people \
            answer y, the new machine stores the key (mode 0600) and both print `Paired with NAME`. \
            Anything else changes nothing and exits 1. The two find each other by UDP multicast on \
            the LAN (port 47790; TCP on the same port for the exchange). Where multicast does not \
            pass, give the joining machine the other's address: `baton pair --join --peer HOST[:PORT]`.
            The same code proves that nobody sits between the two machines; compare it before you \
            answer. docs/PROTOCOL.md, section 15, describes the protocol and what it proves.
            """)

    @Flag(help: "Join: receive the group key from a machine running `baton pair`.")
    var join = false

    @Option(help: ArgumentHelp(
        "With --join: connect to this machine running `baton pair` instead of finding it by multicast.",
        valueName: "host[:port]"))
    var peer: String?

    @Option(help: ArgumentHelp("UDP and TCP port for pairing.", valueName: "port"))
    var port: Int = Pairing.defaultPort

    @Option(help: ArgumentHelp("IPv4 multicast group to find the other machine on (env BATON_GROUP).", valueName: "address"))
    var group: String?

    @Option(help: ArgumentHelp("Network interface to find the other machine on (env BATON_INTERFACE).", valueName: "name"))
    var interface: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp("The key file to share, or, with --join, to write.", valueName: "path"))
    var keyFile: String?

    @Option(help: ArgumentHelp("How the other machine sees you (default: user@host).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("Give up after this many seconds, answers included.", valueName: "seconds"))
    var timeout: Double = Pairing.defaultTimeout

    func validate() throws {
        if peer != nil, !join { throw ValidationError("--peer is for the joining side: baton pair --join --peer HOST.") }
        guard (1...65_535).contains(port) else { throw ValidationError("--port \(port) is out of range: use 1-65535.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds.") }
    }

    func run() throws {
        var config = try MulticastConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        if let group { config.group = try MulticastConfiguration.parseGroup(group, source: "--group") }
        if let interface { config.interface = try MulticastConfiguration.parseInterfaceName(interface, source: "--interface") }
        let myName = PeerInfo.local(app: "baton", appVersion: Baton.version, name: name).name
        let role: PairingMachine.Role
        let keyPath = keyFile ?? GroupKey.defaultPath()
        if join {
            role = .joiner
        } else {
            role = .sharer(try GroupKey.load(keyFile: keyFile).key)
        }
        var session = try PairingSession(
            machine: PairingMachine(role: role, name: myName), isSharer: !join, port: port, group: config.group,
            interface: config.interface, peer: peer, keyPath: keyPath, timeout: timeout)
        if try !session.run() { throw ExitCode(1) }
    }
}

/// One pairing over Glibc sockets: the HELLO socket, the TCP connection, standard input, and a deadline.
struct PairingSession {
    var machine: PairingMachine
    let isSharer: Bool
    let port: Int
    let group: String
    let keyPath: String
    let deadline: Double
    let pairingID: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    var udp: Int32 = -1
    var listener: Int32 = -1
    var connection: Int32 = -1
    var chosenPairing: [UInt8]?
    var prompting = false
    var outcome: Bool?
    let peer: String?

    init(
        machine: PairingMachine, isSharer: Bool, port: Int, group: String, interface: String?, peer: String?,
        keyPath: String, timeout: Double
    ) throws {
        self.machine = machine
        self.isSharer = isSharer
        self.port = port
        self.group = group
        self.keyPath = keyPath
        self.peer = peer
        deadline = Self.now() + timeout
        if peer == nil || isSharer { udp = try Self.multicastSocket(group: group, port: port, interface: interface) }
        if isSharer { listener = try Self.listen(port: port) }
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func say(_ text: String, newline: Bool = true) {
        FileHandle.standardOutput.write(Data((text + (newline ? "\n" : "")).utf8))
    }

    /// Runs until paired (true) or failed (false).
    mutating func run() throws -> Bool {
        if isSharer {
            Self.say("Waiting for `baton pair --join` on the other machine (found by multicast on \(group) port \(port); where multicast does not pass, run there: baton pair --join --peer THIS-MACHINE).")
        } else if let peer {
            try connect(to: peer)
        } else {
            Self.say("Looking for `baton pair` on this network (multicast on \(group) port \(port); where multicast does not pass, use --peer HOST).")
        }
        var nextHello = Self.now()
        defer {
            for fd in [udp, listener, connection] where fd >= 0 { close(fd) }
        }
        while outcome == nil {
            let now = Self.now()
            if now >= deadline {
                apply(machine.timedOut())
                break
            }
            if isSharer, now >= nextHello {
                sendHello()
                nextHello = now + Pairing.helloInterval
            }
            var fds: [pollfd] = []
            for fd in [udp, listener, connection] where fd >= 0 { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            if prompting { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
            let until = isSharer ? min(deadline, nextHello) : deadline
            let wait = Int32(max(0, min(1_000, (until - now) * 1_000)).rounded(.up))
            guard poll(&fds, nfds_t(fds.count), wait) >= 0 else {
                if errno == EINTR { continue }
                throw CommandFailure("poll failed: \(String(cString: strerror(errno)))")
            }
            for entry in fds where entry.revents != 0 && outcome == nil {
                if entry.fd == udp { receiveHello() }
                else if entry.fd == listener { accept() }
                else if entry.fd == connection { readConnection() }
                else if entry.fd == STDIN_FILENO { readAnswer() }
            }
        }
        return outcome ?? false
    }

    private mutating func apply(_ actions: [PairingAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                guard connection >= 0 else { continue }
                var offset = 0
                while offset < bytes.count {
                    let written = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if written <= 0 { break }
                    offset += written
                }
            case .showCode(let code, let peerName):
                Self.say("Pairing with \(PeerText.visible(peerName)).")
                Self.say("Code: \(code)")
                Self.say("Same code on the other screen? [y/N] ", newline: false)
                prompting = true
            case .storeKey(let key):
                do {
                    try key.write(to: keyPath, replace: true)
                    apply(machine.stored())
                } catch {
                    apply(machine.stored(problem: error.description))
                }
            case .paired(let peerName):
                Self.say("Paired with \(PeerText.visible(peerName))")
                if !isSharer {
                    Self.say("\(keyPath) now holds the shared key.")
                    if let set = ProcessInfo.processInfo.environment["BATON_KEY"], !set.isEmpty {
                        Self.say("BATON_KEY is set in this shell and takes the place of that file: unset it (unset BATON_KEY).")
                    }
                }
                outcome = true
            case .failed(let failure):
                if prompting { Self.say("") }
                FileHandle.standardError.write(Data((failure.description + "\n").utf8))
                outcome = false
            }
        }
    }

    private mutating func readAnswer() {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        prompting = false
        let line = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        let answer = line.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let yes = answer == "y" || answer == "yes"
        if count <= 0 { Self.say("") }
        let actions = machine.answered(yes)
        if yes, outcome == nil { Self.say("Waiting for the other screen…") }
        apply(actions)
    }

    private mutating func readConnection() {
        var buffer = [UInt8](repeating: 0, count: 1_024)
        let count = recv(connection, &buffer, buffer.count, 0)
        if count <= 0 {
            apply(machine.connectionClosed())
        } else {
            apply(machine.received(Array(buffer[0..<count])))
        }
    }

    private mutating func accept() {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return }
        if connection >= 0 {
            close(fd)
            apply(machine.otherPairingSeen())
            return
        }
        connection = fd
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    private func sendHello() {
        var address = Self.address(group, port: port)
        let hello = Pairing.hello(port: UInt16(port), pairingID: pairingID)
        _ = hello.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(udp, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    private mutating func receiveHello() {
        var buffer = [UInt8](repeating: 0, count: 64)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(udp, &buffer, buffer.count, 0, $0, &length) }
        }
        guard count > 0, let hello = Pairing.parseHello(Array(buffer[0..<count])), hello.pairingID != pairingID else { return }
        if isSharer {
            // One more HELLO first: the other sharer, which sent the HELLO just heard, is listening
            // now, and hears why both stop (it may have started after this side's last one).
            sendHello()
            apply(machine.otherPairingSeen())
        } else if let chosen = chosenPairing {
            if chosen != hello.pairingID { apply(machine.otherPairingSeen()) }
        } else {
            chosenPairing = hello.pairingID
            var target = source
            target.sin_port = in_port_t(hello.port).bigEndian
            do {
                try connect(address: target)
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                outcome = false
            }
        }
    }

    private mutating func connect(to peer: String) throws {
        var host = peer
        var targetPort = port
        if let colon = peer.lastIndex(of: ":"), let number = Int(peer[peer.index(after: colon)...]) {
            host = String(peer[..<colon])
            targetPort = number
        }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(targetPort), &hints, &result) == 0, let first = result else {
            throw CommandFailure("--peer \(peer): cannot resolve \(host).")
        }
        defer { freeaddrinfo(result) }
        let address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
        try connect(address: address)
    }

    private mutating func connect(address: sockaddr_in) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var target = address
        let result = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, result == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            var text = [CChar](repeating: 0, count: 32)
            inet_ntop(AF_INET, &target.sin_addr, &text, 32)
            throw CommandFailure("Cannot reach `baton pair` at \(String(cString: text)):\(UInt16(bigEndian: target.sin_port)): \(reason).")
        }
        connection = fd
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        apply(machine.start())
    }

    static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    static func check(_ result: Int32, _ what: String) throws {
        if result != 0 { throw CommandFailure("Cannot \(what): \(String(cString: strerror(errno))).") }
    }

    static func option(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Int32 {
        var value = value
        return setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    static func bind(_ fd: Int32, port: Int) -> Int32 {
        var address = address("0.0.0.0", port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// UDP on `port`, joined to `group`, TTL 1, loop on (two pairings on one machine see each other).
    static func multicastSocket(group: String, port: Int, interface: String?) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw CommandFailure("Cannot open a UDP socket: \(String(cString: strerror(errno))).") }
        try check(option(fd, SOL_SOCKET, SO_REUSEADDR, 1), "share UDP port \(port)")
        try check(bind(fd, port: port), "listen on UDP port \(port) for pairing")
        var request = ip_mreqn()
        inet_pton(AF_INET, group, &request.imr_multiaddr)
        if let interface {
            request.imr_ifindex = Int32(if_nametoindex(interface))
            var choice = request
            try check(setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &choice, socklen_t(MemoryLayout<ip_mreqn>.size)), "send multicast on \(interface)")
        }
        let joined = setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
        try check(joined, "join multicast group \(group) (pairing needs multicast, or --peer HOST on the joining side)")
        _ = option(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, 1)
        _ = option(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, 1)
        _ = option(fd, Int32(IPPROTO_IP), IP_MULTICAST_ALL, 0)
        return fd
    }

    /// TCP on all addresses at `port`.
    static func listen(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CommandFailure("Cannot open a TCP socket: \(String(cString: strerror(errno))).") }
        try check(option(fd, SOL_SOCKET, SO_REUSEADDR, 1), "reuse TCP port \(port)")
        try check(bind(fd, port: port), "listen on TCP port \(port) for pairing (is another `baton pair` running here?)")
        try check(Glibc.listen(fd, 4), "listen on TCP port \(port)")
        return fd
    }
}
