import NIOCore
#if canImport(Glibc)
import Glibc
#endif

extension ShellKeeperEngine {
    // MARK: - The program

    /// What the program wrote: into the screen, and offered to the terminals at once when nothing
    /// more waits to be read, else every 20 ms while it keeps coming. Returns whether to stop
    /// reading (the parser's queue is full).
    func output(_ buffer: ByteBuffer) -> Bool {
        let taken = parser.take(buffer)
        if case .parsed(let answers) = taken { writeToProgram(answers) }
        let now = clock.now
        if now - lastScreen >= Self.screenInterval { screenChanged(now: now) }
        return taken == .queuedStop
    }

    /// A read of the program's output ended: the screen is offered unless more is ready, or the
    /// parser has some still (it says when it is done: `outputParsed`).
    func outputPaused() {
        if outputQuiet() { screenChanged(now: clock.now) }
    }

    /// The parser's thread parsed everything it was handed: the screen is offered if nothing
    /// more is coming (during a flood it catches up with the reads often, and the 20 ms rule
    /// offers the screen meanwhile).
    func outputParsed() {
        if endsWhenParsed, !parser.isParsing {
            endsWhenParsed = false
            outputEnded()
            return
        }
        if outputQuiet() { screenChanged(now: clock.now) }
    }

    /// Whether the program's output has stopped for now: nothing waits to be read or parsed.
    private func outputQuiet() -> Bool {
        var ready = pollfd(fd: pty.master, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, 0) > 0, ready.revents & Int16(POLLIN) != 0 { return false }
        return !parser.isParsing
    }

    /// The parser's thread took its queue: the pty is read again.
    func readAgain() {
        guard let program else { return }
        try? program.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        program.read()
    }

    /// The program's side closed: everything it wrote is in the screen (once the parser is done
    /// with it); the status follows.
    func outputEnded() {
        guard !parser.isParsing else { return endsWhenParsed = true }
        screenChanged(now: clock.now)
        program = nil
        let pty = pty
        Task {
            let status = await Self.reap(pty)
            // A program that ends at once may end before `run` waits for it.
            guard let exit = self.exit else { return self.exitStatus = status }
            exit.resume(returning: status)
            self.exit = nil
        }
    }

    func writeToProgram(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, let program else { return }
        program.writeAndFlush(program.allocator.buffer(bytes: bytes), promise: nil)
    }
}

/// The program's side of the pseudo-terminal, on the engine's loop: each read is handed to the
/// engine where it is read, with no task between.
final class ProgramOutput: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let engine: ShellKeeperEngine
    init(engine: ShellKeeperEngine) { self.engine = engine }

    /// The engine writes to the program, and reads again after a stop, through this channel
    /// from the first read on.
    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        engine.assumeIsolated { $0.program = channel }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        // The parser's queue is full: reading stops until its thread takes the queue.
        if engine.assumeIsolated({ $0.output(buffer) }) {
            try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        engine.assumeIsolated { $0.outputPaused() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        engine.assumeIsolated { $0.outputEnded() }
    }

    /// EIO once no process has the terminal open: the channel closes, and `channelInactive` follows.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
