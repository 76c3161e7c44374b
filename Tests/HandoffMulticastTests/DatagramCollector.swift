import Handoff

/// Collects what a transport hands its handler into a list, and lets a test wait until the
/// list satisfies a condition; failed sends are kept too.
///
/// Waiting is woken by arrivals (and by the stream ending), with a deadline that ends the
/// wait as failed; nothing sleeps in the hope that datagrams arrived meanwhile.
actor DatagramCollector {
    private struct Waiter {
        let condition: @Sendable ([ReceivedDatagram]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Everything received so far, in order.
    private(set) var datagrams: [ReceivedDatagram] = []
    /// Whether the stream ended (the transport was closed).
    private(set) var isFinished = false
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0

    /// Sends that failed, in order.
    private(set) var failures: [TransportError] = []

    /// Starts `transport` with a handler that collects into a new collector. With `accepting`,
    /// the handler calls every datagram accepted, as a receiver that holds the group key would
    /// call a datagram that opens (so the transport learns unicast peers from them).
    static func collecting(_ transport: any ActivityTransport, accepting: Bool = false) -> DatagramCollector {
        let collector = DatagramCollector()
        let (stream, continuation) = AsyncStream.makeStream(of: Result<ReceivedDatagram, TransportError>.self)
        transport.start(
            TransportHandler(
                deliver: {
                    continuation.yield(.success($0))
                    return accepting ? .accepted : .notAccepted
                },
                sendFailed: { continuation.yield(.failure($0)) }))
        Task { await collector.consume(stream) }
        return collector
    }

    /// True once `condition` holds for what was received; false if `timeout` passes or the stream ends first.
    func waitUntil(
        within timeout: Duration = .seconds(5),
        _ condition: @escaping @Sendable ([ReceivedDatagram]) -> Bool
    ) async -> Bool {
        if condition(datagrams) { return true }
        if isFinished { return false }
        let id = nextWaiter
        nextWaiter += 1
        let deadline = Task {
            try? await Task.sleep(for: timeout)  // wait-ok: the deadline, cancelled when the condition holds
            self.resume(id, with: false)
        }
        defer { deadline.cancel() }
        return await withCheckedContinuation { continuation in
            waiters[id] = Waiter(condition: condition, continuation: continuation)
        }
    }

    /// True once `count` sends have failed, false if `timeout` passes first.
    func waitForFailures(_ count: Int, within timeout: Duration = .seconds(5)) async -> Bool {
        _ = await waitUntil(within: timeout) { _ in false }
        return failures.count >= count
    }

    private func consume(_ stream: AsyncStream<Result<ReceivedDatagram, TransportError>>) async {
        for await item in stream {
            guard case .success(let datagram) = item else {
                if case .failure(let error) = item { failures.append(error) }
                for (id, _) in waiters { resume(id, with: false) }
                continue
            }
            datagrams.append(datagram)
            for (id, waiter) in waiters where waiter.condition(datagrams) {
                resume(id, with: true)
            }
        }
        isFinished = true
        for id in waiters.keys {
            resume(id, with: false)
        }
    }

    private func resume(_ id: Int, with result: Bool) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: result)
    }
}
