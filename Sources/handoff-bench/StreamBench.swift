import Crypto
import Foundation
import Handoff
import HandoffMulticast
import NIOCore
import NIOPosix
import HandoffWire

/// `handoff-bench stream [megabytes] [rounds]`: the state stream over loopback TCP against
/// plain TCP carrying the same bytes, and the pieces that bound it (seal, open, SHA-256, the two
/// connection machines without a socket), so a change can be judged against its floor.
enum StreamBench {
    /// `fetchOnly` skips everything but the state stream itself (for `perf record`).
    static func run(megabytes: Int, rounds: Int, fetchOnly: Bool) async throws {
        let size = megabytes << 20
        var generator = SplitMix64(seed: 8)
        let state = generator.bytes(size)
        let digest = Array(SHA256.hash(data: state))
        let groupKey = GroupKey.random()
        let shelf = StateShelf()
        shelf.put(activityID: "bench", revision: 1, digest: digest, bytes: state)
        let request = StateRequest(activityID: "bench", revision: 1, digest: digest, size: size)
        let devices = Devices()
        print("State stream, \(megabytes) MiB, median of \(rounds) rounds (MB/s = 10^6 bytes per second)")

        if !fetchOnly {
            try pieces(state: state, groupKey: groupKey, shelf: shelf, request: request, devices: devices, rounds: rounds)
        }
        // A loop for each side, as two programs would have: the source's serving never waits
        // behind the fetcher's reading on one thread.
        let serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TCPStateServer.start(
            shelf: shelf, identity: devices.server, trust: devices.trust(groupKey), host: "127.0.0.1", group: serverGroup)
        let dialer = CountingDialer(TCPStreamDialer(group: clientGroup))
        let fetcher = StateFetcher(identity: devices.client, groupKey: groupKey, dialer: dialer)
        var timings: [Double] = []
        var before = Usage()
        for round in 0..<(rounds + 1) {
            if round == 1 { before = Usage() }
            let started = ContinuousClock.now
            let fetched = try await fetcher.fetch(
                from: "127.0.0.1", port: server.port, source: devices.server.asSource, request: request)
            timings.append(seconds(ContinuousClock.now - started))
            precondition(fetched.count == size)
        }
        let used = Usage() - before
        printLine("state stream (TCPStateServer → StateFetcher)", size, Array(timings.dropFirst()))
        print(String(
            format: "  best %.1f ms; per fetch, both sides: %.1f ms CPU, %.0f page faults, %.0f reads",
            timings.dropFirst().min()! * 1000, used.cpu * 1000 / Double(rounds), Double(used.faults) / Double(rounds),
            Double(dialer.reads.load(ordering: .relaxed)) / Double(rounds + 1)))
        await server.close()
        try await serverGroup.shutdownGracefully()
        try await clientGroup.shutdownGracefully()
    }

    /// The floor: SHA-256, seal and open alone, both machines without a socket, plain TCP.
    static func pieces(
        state: [UInt8], groupKey: GroupKey, shelf: StateShelf, request: StateRequest, devices: Devices, rounds: Int
    ) throws {
        let size = state.count
        let key = [UInt8](repeating: 7, count: 32)
        report("SHA-256 alone", size, rounds) { _ = SHA256.hash(data: state) }
        let frames = sealedFrames(state, key: key)
        report("seal in DATA frames", size, rounds) {
            var sealer = StreamFrameSealer(key: key)
            var position = 0
            while position < state.count {
                let end = min(state.count, position + StateStream.maximumDataLength)
                precondition(sealer.sealParts([StreamMessage.dataType] + state[position..<end]).count > 0)
                position = end
            }
        }
        report("open DATA frames", size, rounds) {
            var deframer = StreamDeframer(key: key)
            deframer.append(frames)
            while let plaintext = try! deframer.next() { precondition(plaintext.count > 1) }
        }
        report("both machines, no socket", size, rounds) {
            precondition(machinesAlone(groupKey: groupKey, shelf: shelf, request: request, devices: devices) == size)
        }
        let plain = try PlainTCP(bytes: state)
        report("plain TCP (POSIX, one thread a side)", size, rounds) { precondition(plain.fetch() == size) }
    }

    /// The state cut into DATA frames and sealed, all in one array.
    static func sealedFrames(_ state: [UInt8], key: [UInt8]) -> [UInt8] {
        var sealer = StreamFrameSealer(key: key)
        var out: [UInt8] = []
        out.reserveCapacity(state.count + state.count / 4096 + 64)
        var position = 0
        while position < state.count {
            let end = min(state.count, position + StateStream.maximumDataLength)
            let frame = sealer.sealParts([StreamMessage.dataType] + state[position..<end])
            out.append(contentsOf: frame.length)
            out.append(contentsOf: frame.ciphertext)
            out.append(contentsOf: frame.tag)
            position = end
        }
        return out
    }

    /// Both connection machines on one thread, bytes handed across in 256 KiB chunks as a
    /// socket would: everything the stream costs but the socket. Returns the bytes received.
    static func machinesAlone(groupKey: GroupKey, shelf: StateShelf, request: StateRequest, devices: Devices) -> Int {
        var server = StateServerConnection(identity: devices.server, trust: devices.trust(groupKey), shelf: shelf)
        var client = StateClientConnection(
            identity: devices.client, groupKey: groupKey, source: devices.server.asSource, request: request, offset: 0)
        var toServer = client.start()
        var toClient: [UInt8] = []
        var streaming = false
        var received: [UInt8] = []
        received.reserveCapacity(request.size)
        var hasher = SHA256()
        while !client.isDone {
            for output in server.receive(toServer) {
                if case .write(let bytes) = output { toClient += bytes }
                if case .startStreaming = output { streaming = true }
            }
            toServer = []
            while streaming, toClient.count < 256 << 10, let frame = server.nextSealedDataFrame() {
                toClient.append(contentsOf: frame.length)
                toClient.append(contentsOf: frame.ciphertext)
                toClient.append(contentsOf: frame.tag)
            }
            for output in client.receive(toClient) {
                switch output {
                case .write(let bytes): toServer += bytes
                case .data(let body):
                    received.append(contentsOf: body)
                    body.withUnsafeBytes { hasher.update(bufferPointer: $0) }
                case .finished, .failed: break
                }
            }
            toClient = []
        }
        precondition(Array(hasher.finalize()) == request.digest)
        return received.count
    }

    static func report(_ name: String, _ size: Int, _ rounds: Int, _ body: () -> Void) {
        body()
        var timings: [Double] = []
        for _ in 0..<rounds {
            let started = ContinuousClock.now
            body()
            timings.append(seconds(ContinuousClock.now - started))
        }
        printLine(name, size, timings)
    }

    static func printLine(_ name: String, _ size: Int, _ timings: [Double]) {
        let median = timings.sorted()[timings.count / 2]
        let padded = name.padding(toLength: 46, withPad: " ", startingAt: 0)
        print(String(format: "%@ %8.1f ms %8.0f MB/s", padded, median * 1000, Double(size) / median / 1e6))
    }

    /// The process's CPU time (user and system) and minor page faults so far.
    struct Usage {
        var cpu: Double
        var faults: Int

        init() {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            faults = usage.ru_minflt
        }

        private init(cpu: Double, faults: Int) {
            self.cpu = cpu
            self.faults = faults
        }

        static func - (after: Usage, before: Usage) -> Usage {
            Usage(cpu: after.cpu - before.cpu, faults: after.faults - before.faults)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (s, atto) = duration.components
        return Double(s) + Double(atto) / 1e18
    }
}

extension StreamBench {
    /// Two devices, the fetching one and the serving one, each listing the other.
    struct Devices {
        let client = StreamIdentity(device: .random(), instance: Array(repeating: 1, count: 8))
        let server = StreamIdentity(device: .random(), instance: Array(repeating: 2, count: 8))

        func trust(_ groupKey: GroupKey) -> StreamTrust {
            StreamTrust(groupKeys: [groupKey], devices: [client.device.publicIdentity])
        }
    }
}
