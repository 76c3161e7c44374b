import BatonShell
import Handoff
import HandoffWire

extension ShellKeeperEngine {
    /// A terminal's stream and the queue of what it is sent, in order.
    final class Joined {
        let stream: ContinuationStream
        let outbox: AsyncStream<Outgoing>.Continuation
        var done: Task<Void, Never>?
        /// Messages handed to `outbox` and not sent yet.
        var queued = 0
        init(stream: ContinuationStream, outbox: AsyncStream<Outgoing>.Continuation) {
            self.stream = stream
            self.outbox = outbox
        }

        /// Sends `message` from here when it can go at once (nothing queued, the window open),
        /// else queues it.
        func post(_ message: ShellMessage) {
            let bytes = message.bytes
            if queued == 0, stream.sendAtOnce(bytes) { return }
            queued += 1
            outbox.yield(.message(bytes))
        }
    }

    enum Outgoing: Sendable {
        case message([UInt8])
        case close
    }

    /// A terminal opened `stream`: its messages are read here, on the engine's loop, and it has
    /// 5 s of the clock for its hello.
    func join(_ stream: ContinuationStream, origin: ShellKeeperCore.Origin) {
        let id = nextID
        nextID += 1
        let (outbox, queue) = AsyncStream<Outgoing>.makeStream()
        let joined = Joined(stream: stream, outbox: queue)
        joined.done = Task { await self.send(outbox, to: joined) }
        terminals[id] = joined
        report(.terminals(terminals.count))
        logger.info("\(stream.peer.name) opened a stream (terminal \(id))")
        // Each message is handled where it was read: on this loop for a TCP connection (the
        // keeper's are), else handed to it in order.
        let loop = loop
        stream.deliverMessages { [weak self] result in
            guard let self else { return }
            if loop.inEventLoop {
                self.assumeIsolated { $0.received(id, result, origin: origin) }
            } else {
                loop.execute { self.assumeIsolated { $0.received(id, result, origin: origin) } }
            }
        }
        let clock = clock
        let deadline = clock.now + Self.helloTime
        Task {
            try? await clock.sleep(until: deadline)
            guard self.terminals[id] != nil, !self.greeted.contains(id) else { return }
            self.logger.notice("terminal \(id) sent no hello within \(Self.helloTime); closing it")
            self.ended(id)
        }
    }

    /// Sends what could not go at once, in order, each waiting for the terminal's window.
    private func send(_ outbox: AsyncStream<Outgoing>, to joined: Joined) async {
        for await item in outbox {
            switch item {
            case .message(let bytes):
                do { try await joined.stream.send(bytes) } catch { return }
                joined.queued -= 1
            case .close:
                await joined.stream.close()
                return
            }
        }
    }

    /// A message from terminal `id`, or the end of its stream: its first message is its hello.
    func received(_ id: Int, _ result: Result<[UInt8]?, HandoffError>, origin: ShellKeeperCore.Origin) {
        guard terminals[id] != nil else { return }
        let bytes: [UInt8]
        switch result {
        case .success(let message?): bytes = message
        case .success(nil): return ended(id)
        case .failure(let error):
            logger.info("terminal \(id): \(error)")
            return ended(id)
        }
        let message: ShellMessage
        do {
            message = try ShellMessage(bytes: bytes)
        } catch ShellMessage.ReadError.unknownKind {
            return
        } catch {
            logger.notice("terminal \(id): a message that does not read (\(error)); closing it")
            return ended(id)
        }
        let now = clock.now
        let first = greeted.insert(id).inserted
        perform(first ? core.join(id, origin: origin, hello: message, now: now) : core.receive(id, message, now: now))
    }

    /// A terminal's stream ended: it leaves, and its queue is closed.
    func ended(_ id: Int) {
        perform(core.left(id))
        terminals[id]?.outbox.yield(.close)
        terminals[id]?.outbox.finish()
        if terminals.removeValue(forKey: id) != nil { report(.terminals(terminals.count)) }
        greeted.remove(id)
        // Nobody attached: the keeper waits, running little of the code it ran to serve (unless
        // the program ended: then it is on its way out).
        guard terminals.isEmpty else { return }
        if core.endedStatus == nil {
            let bytes = ProgramPages.giveBack()
            logger.debug("nobody attached: the pages of \(bytes / 1_048_576) MB of read-only mappings given back")
        } else {
            allLeft?.resume()
            allLeft = nil
        }
    }

    /// The terminals joined now, and who each is.
    func peers() -> [(id: Int, peer: ContinuationStream.Peer)] {
        terminals.map { ($0.key, $0.value.stream.peer) }
    }

    /// Closes terminal `id` (its device was removed from the list).
    func close(_ id: Int) {
        guard terminals[id] != nil else { return }
        ended(id)
    }
}
