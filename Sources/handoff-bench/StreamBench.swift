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
        // HANDOFF_BENCH_READ_AHEAD (bytes) tries another read-ahead than the dialer's default.
        let readAhead = ProcessInfo.processInfo.environment["HANDOFF_BENCH_READ_AHEAD"].flatMap { Int($0) }
        let dialer = CountingDialer(
            readAhead.map { TCPStreamDialer(group: clientGroup, readAhead: $0) } ?? TCPStreamDialer(group: clientGroup))
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
            format: "  first (cold) %.1f ms, best %.1f ms; per fetch, both sides: %.1f ms CPU, %.0f page faults, %.0f reads",
            timings[0] * 1000, timings.dropFirst().min()! * 1000, used.cpu * 1000 / Double(rounds), Double(used.faults) / Double(rounds),
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
        var out = [UInt8](repeating: 0, count: StateStream.maximumFrameLength + 4)
        report("seal in DATA frames (into one reused buffer)", size, rounds) {
            var sealer = StreamFrameSealer(key: key)
            var type = StreamMessage.dataType
            state.withUnsafeBytes { state in
                withUnsafeBytes(of: &type) { head in
                    out.withUnsafeMutableBytes { out in
                        var position = 0
                        while position < state.count {
                            let end = min(state.count, position + StateStream.maximumDataLength)
                            let body = UnsafeRawBufferPointer(rebasing: state[position..<end])
                            precondition(sealer.seal(head: head, body: body, into: out) > 0)
                            position = end
                        }
                    }
                }
            }
        }
        report("open DATA frames (into one reused buffer)", size, rounds) {
            var deframer = StreamDeframer(key: key)
            deframer.append(frames)
            while try! deframer.openNext() { precondition(deframer.plaintextCount > 1) }
        }
        // The same frames through swift-crypto's ChaChaPoly, whose seal and open return new
        // Data (the seal joining nonce, ciphertext and tag): what its API costs the stream.
        let symmetric = SymmetricKey(data: key)
        report("  swift-crypto ChaChaPoly.seal, same frames", size, rounds) {
            var counter: UInt64 = 0
            var position = 0
            var plaintext: [UInt8] = []
            plaintext.reserveCapacity(StateStream.maximumPlaintext)
            while position < state.count {
                let end = min(state.count, position + StateStream.maximumDataLength)
                plaintext.removeAll(keepingCapacity: true)
                plaintext.append(StreamMessage.dataType)
                plaintext.append(contentsOf: state[position..<end])
                let length = withUnsafeBytes(of: UInt32(plaintext.count + 16).bigEndian) { Array($0) }
                let box = try! ChaChaPoly.seal(plaintext, using: symmetric, nonce: nonce(counter), authenticating: length)
                precondition(box.ciphertext.count == plaintext.count)
                counter += 1
                position = end
            }
        }
        report("  swift-crypto ChaChaPoly.open, same frames", size, rounds) {
            var counter: UInt64 = 0
            var position = 0
            while position < frames.count {
                var length = 0
                for byte in frames[position..<(position + 4)] { length = length << 8 | Int(byte) }
                var combined = Data(capacity: 12 + length)
                combined.append(contentsOf: [0, 0, 0, 0] as [UInt8])
                withUnsafeBytes(of: counter.bigEndian) { combined.append(contentsOf: $0) }
                frames.withUnsafeBufferPointer {
                    combined.append(UnsafeBufferPointer(rebasing: $0[(position + 4)..<(position + 4 + length)]))
                }
                let opened = try! ChaChaPoly.open(
                    ChaChaPoly.SealedBox(combined: combined), using: symmetric, authenticating: frames[position..<(position + 4)])
                precondition(opened.count == length - 16)
                counter += 1
                position += 4 + length
            }
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
            out.append(contentsOf: sealer.seal([StreamMessage.dataType] + state[position..<end]))
            position = end
        }
        return out
    }

    /// ChaCha20-Poly1305's nonce for frame `counter` of the state stream.
    static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
        var bytes: [UInt8] = [0, 0, 0, 0]
        withUnsafeBytes(of: counter.bigEndian) { bytes.append(contentsOf: $0) }
        return try! ChaChaPoly.Nonce(data: bytes)
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
            while streaming, toClient.count < 256 << 10, let frame = server.nextDataFrame() {
                toClient.append(contentsOf: frame)
            }
            let outputs = client.receive(toClient) { body in
                hasher.update(bufferPointer: body)
                received.append(contentsOf: body)
            }
            for output in outputs {
                switch output {
                case .write(let bytes): toServer += bytes
                case .data, .finished, .failed: break
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
