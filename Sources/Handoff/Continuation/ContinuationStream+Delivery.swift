import HandoffWire

/// Messages handed on as they arrive (`deliverMessages`), instead of to a task waiting in
/// `messages`.
extension ContinuationStream {
    /// Hands every message to `receive` as it arrives, from the thread that delivered it (for a
    /// TCP connection its event loop, `executor`), one call at a time and in order; then, once,
    /// nil when the other end closed the stream, or the error that ended it. What arrived before
    /// the call goes first, from the caller's thread. The other end's window opens as each
    /// message is handed on, so `receive` takes each as it comes. Use it instead of `messages`,
    /// not beside it: on the pipe's event loop a message and the answer to it cross no other
    /// thread, where a task waiting in `messages` is resumed through the global executor, which
    /// wakes two threads.
    public func deliverMessages(to receive: @escaping @Sendable (Result<[UInt8]?, HandoffError>) -> Void) {
        let now = clock.now
        perform { core in
            core.pusher = receive
            return Self.takeForPusher(&core, now: now)
        }
    }

    /// Moves every whole message waiting, and the end once the stream ended, to `pushes`;
    /// returns what taking them asks (the window granted).
    static func takeForPusher(_ core: inout Core, now: ContinuousClock.Instant) -> [ContinuationStreamMachine.Action] {
        var actions: [ContinuationStreamMachine.Action] = []
        while true {
            let (message, more) = core.machine.take(now: now)
            guard let message else { break }
            actions += more
            core.pushes.append(.success(message))
        }
        if core.machine.ending != nil, !core.endPushed {
            core.endPushed = true
            let failure = Self.failure(of: core.machine)
            core.pushes.append(failure == .closed ? .success(nil) : .failure(failure))
        }
        return actions
    }

    /// Hands what `pushes` holds to the pusher, in order, unless another thread is doing so (it
    /// looks again once it let go, so nothing waits for a later arrival).
    func deliverPushes() {
        while true {
            let handed: Void? = delivering.withLockIfAvailable { _ in
                while let (pusher, next) = core.withLock({ core -> (Pusher, Result<[UInt8]?, ContinuationStreamFailure>)? in
                    guard let pusher = core.pusher, !core.pushes.isEmpty else { return nil }
                    return (pusher, core.pushes.removeFirst())
                }) {
                    pusher(next.mapError { failure($0) })
                }
            }
            guard handed != nil, !core.withLock({ $0.pushes.isEmpty }) else { return }
        }
    }
}
