import BatonShell
import Dispatch
import Handoff
import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// What a key and its echo cross in a shell session's keeper, on one event loop: the program's
/// pseudo-terminal (a NIO channel), its screen in libvterm, `ShellKeeperCore`'s rules and the
/// terminals' continuation streams. The streams' connections are on the same loop when the
/// program runs one (the keeper does), so a key read from a terminal's socket reaches the
/// program, and the program's echo leaves on the socket, without waking another thread: the
/// main actor, where the activity lives, hears only of what the activity says (the size, the
/// program in front).
actor ShellKeeperEngine {
    nonisolated let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    /// What the activity says changed, for the main actor.
    enum Report: Sendable {
        case size(rows: Int, columns: Int)
        case running(RunningProgram)
        /// How many terminals are joined now.
        case terminals(Int)
    }

    nonisolated let pty: Pseudoterminal
    /// The screen, and the program's output on its way into it (`OutputParser`).
    nonisolated let parser: OutputParser
    var core: ShellKeeperCore
    let clock: any HandoffClock
    let logger: Logger
    let report: @Sendable (Report) -> Void
    var running: RunningProgram
    var terminals: [Int: Joined] = [:]
    var nextID = 1
    /// Terminals that said hello.
    var greeted: Set<Int> = []
    var timer: Timer?
    var timerDeadline: ContinuousClock.Instant?
    var lastLook: ContinuousClock.Instant
    /// When the screen was last offered.
    var lastScreen: ContinuousClock.Instant
    /// The pseudo-terminal's master end as a channel: what the program writes, and what is typed.
    var program: (any Channel)?
    /// Told the program's status once its output ended and it was reaped.
    var exit: CheckedContinuation<Int, Never>?
    /// The status, when the program was reaped before `run` waited for it.
    var exitStatus: Int?
    /// Told when the last terminal left after the program ended.
    var allLeft: CheckedContinuation<Void, Never>?
    /// The program's output ended while the parser still had some: it ends once that is parsed.
    var endsWhenParsed = false

    init(
        pty: Pseudoterminal, rows: Int, columns: Int, running: RunningProgram, allowsListedDevices: Bool, clock: any HandoffClock,
        logger: Logger, loop: any EventLoop, report: @escaping @Sendable (Report) -> Void
    ) {
        self.pty = pty
        self.loop = loop
        self.clock = clock
        self.logger = logger
        self.report = report
        self.running = running
        // The parser's thread comes back to this loop for what it found; the engine is made by then.
        let engine = WeakEngine()
        parser = OutputParser(
            rows: rows, columns: columns,
            answer: { bytes in loop.execute { engine.value?.assumeIsolated { $0.writeToProgram(bytes) } } },
            resume: { loop.execute { engine.value?.assumeIsolated { $0.readAgain() } } },
            drained: { loop.execute { engine.value?.assumeIsolated { $0.outputParsed() } } })
        core = ShellKeeperCore(screen: parser.screen, allowsListedDevices: allowsListedDevices)
        lastLook = clock.now
        lastScreen = clock.now
        engine.value = self
    }

    /// The engine, for the parser's thread: set once it is made, and not kept alive by it.
    final class WeakEngine: @unchecked Sendable {
        weak var value: ShellKeeperEngine?
    }

    /// How long a terminal has for its first message.
    static let helloTime = Duration.seconds(5)
    /// How often the terminals are offered the screen while output keeps coming.
    static let screenInterval = Duration.milliseconds(20)

    /// Reads the program's output until it ends, then tells the terminals its status and waits
    /// until each was told; returns the status as a shell gives it.
    func run() async -> Int {
        let status: Int
        if let channel = await openProgram() {
            program = channel
            if let reaped = exitStatus {
                status = reaped
            } else {
                status = await withCheckedContinuation { exit = $0 }
            }
        } else {
            // Nothing can read what it writes: it is hung up, as a closed terminal would.
            pty.signal(SIGHUP)
            status = await Self.reap(pty)
        }
        logger.info("the program ended with status \(status)")
        perform(core.programEnded(status: status, now: clock.now))
        // Each terminal is told and its stream closed before the keeper ends: `close` only begins
        // the close, and a keeper that exited with ENDED not yet written left the terminal saying
        // the link was lost (a lab test, once, under load). A terminal leaves once its close is
        // answered, or after the close's 2 s.
        if !terminals.isEmpty { await withCheckedContinuation { allLeft = $0 } }
        timer?.cancel()
        pty.closeMaster()
        return status
    }

    /// The master end as a channel of this loop (a copy of the descriptor, which the channel
    /// owns and closes); nil, said in the log, when NIO would not take it.
    private func openProgram() async -> (any Channel)? {
        let copy = dup(pty.master)
        guard copy >= 0 else {
            logger.error("the pseudo-terminal could not be read: \(String(cString: strerror(errno)))")
            return nil
        }
        do {
            return try await NIOPipeBootstrap(group: loop)
                .channelOption(.maxMessagesPerRead, value: 16)
                .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: 4096, maximum: 65_536))
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ProgramOutput(engine: self)) }
                }
                .takingOwnershipOfDescriptor(inputOutput: copy)
                .get()
        } catch {
            // The copy is NIO's now, closed by it or with the process.
            logger.error("the pseudo-terminal could not be read: \(error)")
            return nil
        }
    }

    /// Waits for the program to end, on a thread that may block.
    static func reap(_ pty: Pseudoterminal) async -> Int {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: pty.waitForExit()) }
        }
    }

    /// What the program showed is offered to the terminals.
    func screenChanged(now: ContinuousClock.Instant) {
        lastScreen = now
        guard let screen = parser.changedScreen() else { return }
        perform(core.screenChanged(screen, now: now))
        guard now - lastLook >= .seconds(1) else { return }
        lastLook = now
        // A little later, once the screen has been drawn where it went: read here, /proc's four
        // system calls sat between the program's echo and the screen's write (strace); read at
        // the end of this turn of the loop, they ran while the driving terminal's echo was on its
        // way to the screen, on a machine where they share the cores (perf sched).
        loop.scheduleTask(in: Self.lookDelay) { self.assumeIsolated { $0.lookAtProgram() } }
    }

    /// How long after a screen is sent the program in front is looked at (at most once a second).
    static let lookDelay = TimeAmount.milliseconds(5)

    /// At most once a second: what runs in front, and in which folder; reported when it changed.
    func lookAtProgram() {
        // Once the program's output ended the master may be closed, and its number another's.
        guard program != nil, let seen = RunningProgram.inFront(of: pty.master), seen != running else { return }
        running = seen
        report(.running(seen))
    }

    func perform(_ actions: [ShellKeeperCore.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let message): terminals[id]?.post(message)
            case .close(let id):
                terminals[id]?.outbox.yield(.close)
                terminals[id]?.outbox.finish()
            case .type(let input):
                writeToProgram(parser.type(input))
            case .resize(let rows, let columns):
                pty.resize(rows: rows, columns: columns)
                writeToProgram(parser.resize(rows: rows, columns: columns))
                report(.size(rows: rows, columns: columns))
                perform(core.screenChanged(parser.screen, now: clock.now))
            }
        }
        schedule()
    }

    /// Ticks the core at its deadline (the time a question has to be answered, or the followers
    /// stop waiting for the driver). A timer that fires no later than that is kept, and one whose
    /// deadline went away fires for nothing: cancelling a sleeping task wakes a thread, which
    /// every key would pay, as each sets the followers' deadline and the driver's `shown` clears it.
    ///
    /// On the system clock the timer is the loop's own: arming it wakes no other thread. A task
    /// that sleeps woke a thread of the global executor, which woke the one that keeps its timers,
    /// for about every key (the followers' deadline is set by each).
    private func schedule() {
        guard let deadline = core.nextDeadline else { return }
        if let pending = timerDeadline, pending <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        let clock = clock
        guard clock is SystemClock else {
            timer = .task(Task {
                try? await clock.sleep(until: deadline)
                guard !Task.isCancelled else { return }
                self.tick()
            })
            return
        }
        let wait = max(.zero, deadline - clock.now).components
        let nanoseconds = wait.seconds * 1_000_000_000 + wait.attoseconds / 1_000_000_000
        timer = .loop(loop.scheduleTask(in: .nanoseconds(nanoseconds)) { self.assumeIsolated { $0.tick() } })
    }

    /// The timer fired: what is due by now.
    private func tick() {
        timer = nil
        timerDeadline = nil
        perform(core.tick(now: clock.now))
    }

    /// The core's next tick: a timer of the loop, or a task that sleeps on another clock (a test's).
    enum Timer {
        case loop(Scheduled<Void>)
        case task(Task<Void, Never>)

        func cancel() {
            switch self {
            case .loop(let scheduled): scheduled.cancel()
            case .task(let task): task.cancel()
            }
        }
    }
}
