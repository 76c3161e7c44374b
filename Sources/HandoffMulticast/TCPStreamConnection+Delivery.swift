import NIOCore

/// A continuation stream's reading: what the socket reads is handed on from the event loop as
/// it arrives, instead of waking a reading task that then wakes the stream's reader. On a
/// follower each key's change crossed one thread fewer so (and on a loaded machine each crossing
/// can wait milliseconds for a CPU).
extension TCPStreamConnection {
    typealias Pusher = @Sendable (Result<[UInt8]?, any Error>) -> Void

    func deliver(to receive: @escaping @Sendable (Result<[UInt8]?, any Error>) -> Void) -> Bool {
        let wasPaused = inbox.withLock { inbox -> Bool in
            inbox.pusher = receive
            defer { inbox.paused = false }
            return inbox.paused
        }
        // What arrived before goes first, from the event loop like everything after it.
        let channel = channel
        channel.eventLoop.execute {
            self.pushWaiting()
            if wasPaused { channel.read() }
        }
        return true
    }

    /// On the event loop: what waits, then the end once, to the pusher.
    func pushWaiting() {
        let (pusher, events) = inbox.withLock { inbox -> (Pusher?, [Result<[UInt8]?, any Error>]) in
            guard let pusher = inbox.pusher else { return (nil, []) }
            var events: [Result<[UInt8]?, any Error>] = []
            if !inbox.bytes.isEmpty {
                events.append(.success(inbox.bytes))
                inbox.bytes = []
            }
            if inbox.ended, !inbox.endPushed {
                inbox.endPushed = true
                events.append(inbox.error.map { .failure($0) } ?? .success(nil))
            }
            return (pusher, events)
        }
        guard let pusher else { return }
        for event in events { pusher(event) }
    }
}
