import Handoff
import NIOCore
import HandoffWire

/// Hosts one `StateServerConnection` on an accepted TCP connection: feeds it what the client
/// sends, writes what it answers, pulls DATA frames only while the channel is writable, and
/// enforces the server's deadlines (docs/PROTOCOL.md section 10, "Limits").
final class StateServerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var machine: StateServerConnection
    private let limits: TCPStateServer.Limits
    private let events: TCPStateServer.Events
    private var handshakeDeadline: Scheduled<Void>?
    private var stallCheck: Scheduled<Void>?
    /// Writes handed to the channel and not yet completed.
    private var outstandingWrites = 0
    /// When a write last completed (or streaming began).
    private var lastProgress = NIODeadline.uptimeNanoseconds(0)
    private var streaming = false
    private var closing = false
    private var pumping = false
    private var pumpAgain = false
    /// Where an OPEN is handed, and, once it was, the connection as the continuation stream's pipe.
    private let door: ContinuationDoor
    private var pipe: TCPStreamConnection?

    init(machine: StateServerConnection, limits: TCPStateServer.Limits, events: TCPStateServer.Events, door: ContinuationDoor) {
        self.machine = machine
        self.limits = limits
        self.events = events
        self.door = door
    }

    func channelActive(context: ChannelHandlerContext) {
        // From the accepted connection on, whatever the client sends meanwhile (a client
        // trickling bytes does not move it).
        handshakeDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: limits.handshakeTimeout) {
            guard !self.machine.hasAnswered, !self.closing else { return }
            self.events.closed(.handshakeTimeout)
            self.close(context)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshakeDeadline?.cancel()
        stallCheck?.cancel()
        closing = true
        pipe?.ended(nil)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let buffer = unwrapInboundIn(data)
        if let pipe {
            _ = pipe.received(buffer)
            return
        }
        perform(machine.receive(buffer.readableBytesView), context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, !closing {
            if let pipe { pipe.ended(nil) } else { perform(machine.receiveEnd(), context) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump(context) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a failed write: the connection is over.
        pipe?.ended(error)
        close(context)
    }

    private func perform(_ outputs: [StateServerConnection.Output], _ context: ChannelHandlerContext) {
        for output in outputs {
            switch output {
            case .write(let bytes):
                write(bytes, context)
                context.flush()
            case .startStreaming:
                handshakeDeadline?.cancel()
                streaming = true
                lastProgress = context.eventLoop.now
                scheduleStallCheck(context)
                pump(context)
            case .close(let reason):
                handshakeDeadline?.cancel()
                events.closed(.protocol(reason))
                closeAfterWrites(context)
            case .openStream(var opening):
                // The connection is the continuation stream's now: no fetch deadline, and it
                // counts against the streams' own limit, not the fetches'.
                handshakeDeadline?.cancel()
                events.release(context.channel)
                let pipe = TCPStreamConnection(channel: context.channel, readAhead: 1 << 20)
                self.pipe = pipe
                if !door.enter(opening, pipe: pipe) {
                    write(opening.refusal(), context)
                    context.flush()
                    closeAfterWrites(context)
                }
            }
        }
    }

    /// Seals and writes DATA frames while the channel takes them; the rest follows in
    /// `channelWritabilityChanged`. After the last frame is written, the server closes.
    ///
    /// A flush can make the channel writable again at once, which calls back in here: that
    /// call only asks for another round, so frames are sealed and written in one order.
    private func pump(_ context: ChannelHandlerContext) {
        guard !pumping else {
            pumpAgain = true
            return
        }
        pumping = true
        defer { pumping = false }
        repeat {
            pumpAgain = false
            guard streaming, !closing else { return }
            var wrote = false
            while context.channel.isWritable, let length = machine.nextDataFrameLength {
                // Sealed straight from the kept state into the socket's buffer.
                var buffer = context.channel.allocator.buffer(capacity: length)
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { machine.sealNextDataFrame(into: $0) }
                guard buffer.readableBytes > 0 else { break }  // withheld: the machine closed
                write(buffer, context)
                wrote = true
            }
            if let reason = machine.closeReason {
                // A state made again that did not match its digest: its last frame is not sent.
                streaming = false
                events.closed(.protocol(reason))
                if wrote { context.flush() }
                return closeAfterWrites(context)
            }
            let done = !machine.isStreaming
            if done {
                streaming = false
                events.closed(.finished)
            }
            if wrote { context.flush() }
            if done { return closeAfterWrites(context) }
        } while pumpAgain
    }

    private func write(_ bytes: [UInt8], _ context: ChannelHandlerContext) {
        write(context.channel.allocator.buffer(bytes: bytes), context)
    }

    private func write(_ buffer: ByteBuffer, _ context: ChannelHandlerContext) {
        outstandingWrites += 1
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { result in
            self.outstandingWrites -= 1
            if case .success = result {
                self.lastProgress = context.eventLoop.now
                if self.closing, self.outstandingWrites == 0 { context.close(promise: nil) }
            }
        }
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    /// Closes once every write handed to the channel has gone out (an ERROR, the last DATA).
    private func closeAfterWrites(_ context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        if outstandingWrites == 0 { context.close(promise: nil) }
    }

    private func close(_ context: ChannelHandlerContext) {
        closing = true
        handshakeDeadline?.cancel()
        stallCheck?.cancel()
        context.close(promise: nil)
    }

    /// Closes the connection once writes are waiting and none completed for `writeStallTimeout`.
    private func scheduleStallCheck(_ context: ChannelHandlerContext) {
        let due = lastProgress + limits.writeStallTimeout
        stallCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
            guard self.outstandingWrites > 0 else {
                if self.streaming { self.lastProgress = context.eventLoop.now }
                if self.streaming || self.closing { self.scheduleStallCheck(context) }
                return
            }
            if context.eventLoop.now - self.lastProgress >= self.limits.writeStallTimeout {
                self.events.closed(.writeStalled)
                self.close(context)
            } else {
                self.scheduleStallCheck(context)
            }
        }
    }
}
