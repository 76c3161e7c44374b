import BatonShell
import Dispatch
import Handoff
import HandoffWire
import Logging
import PropertyList
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A shell session's keeper: the program on its pseudo-terminal, its screen in libvterm, the
/// activity that offers it (`dev.baton.shell`), and the terminals joined to it on continuation
/// streams, driven by `ShellKeeperCore`'s rules. It lives until the program ends, whoever is
/// attached or not.
@MainActor
public final class ShellKeeper: UserActivityDelegate {
    /// The declared activity type of a shell session.
    public static let activityType = "dev.baton.shell"

    let center: ActivityCenter
    let pty: Pseudoterminal
    let emulator: TerminalEmulator
    var core: ShellKeeperCore
    let activity: UserActivity
    let logger: Logger
    /// What the activity says runs, and where; followed as the program in front changes.
    var running: RunningProgram
    var terminals: [Int: Joined] = [:]
    var nextID = 1
    /// Terminals that said hello.
    var greeted: Set<Int> = []
    var timer: Task<Void, Never>?
    var lastLook: ContinuousClock.Instant
    /// When the screen was last offered.
    var lastScreen: ContinuousClock.Instant
    /// The program's output read and not yet taken by libvterm.
    let output = OutputGate()

    /// A terminal's stream and the queue of what it is sent, in order.
    final class Joined {
        let stream: ContinuationStream
        let outbox: AsyncStream<Outgoing>.Continuation
        var done: Task<Void, Never>?
        /// Reads its messages until the stream ends (its close answered, or lost).
        var reader: Task<Void, Never>?
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

    enum ProgramEvent: Sendable {
        case output([UInt8])
        case exited(Int)
    }

    enum Outgoing: Sendable {
        case message([UInt8])
        case close
    }

    /// Starts `arguments` on a pseudo-terminal of `rows` × `columns` in `folder`, and offers it.
    public init(
        center: ActivityCenter, arguments: [String], environment: [String: String], folder: String, rows: Int, columns: Int,
        allowsListedDevices: Bool, logger: Logger
    ) throws(Pseudoterminal.StartError) {
        self.center = center
        self.logger = logger
        lastLook = center.clock.now
        lastScreen = center.clock.now
        pty = try Pseudoterminal(arguments: arguments, environment: environment, folder: folder, rows: rows, columns: columns)
        emulator = TerminalEmulator(rows: rows, columns: columns)
        core = ShellKeeperCore(screen: emulator.screen, allowsListedDevices: allowsListedDevices)
        running = RunningProgram(arguments: arguments, folder: folder)
        activity = UserActivity(activityType: Self.activityType, center: center)
        activity.supportsContinuationStreams = true
        activity.delegate = self
        publish()
    }

    /// The activity's id, which a terminal on this machine opens its stream to.
    public var activityID: String { activity.activityID }

    /// Runs until the program ends; returns its status as a shell gives it.
    public func run() async -> Int {
        do { try activity.becomeCurrent() } catch { logger.error("the session is not offered: \(error)") }
        let (events, feed) = AsyncStream<ProgramEvent>.makeStream()
        let pty = self.pty
        let gate = output
        // Blocking reads on a thread of their own (not one of Swift's few cooperative ones):
        // the program's output, then its status. At most `OutputGate.limit` chunks wait for
        // the screen: then the program waits, as it would for a slow terminal, and the keeper's
        // memory does not grow with what it writes.
        DispatchQueue(label: "baton.shell.pty").async {
            while let chunk = pty.read() {
                gate.enter()
                feed.yield(.output(chunk))
            }
            feed.yield(.exited(pty.waitForExit()))
            feed.finish()
        }
        let membership = Task { @MainActor [weak self] in
            guard let events = self?.center.events() else { return }
            for await event in events {
                if case .membershipChanged = event { self?.closeRemovedDevices() }
            }
        }
        var status = 255
        for await event in events {
            switch event {
            case .output(let chunk):
                emulator.write(chunk)
                writeToProgram(emulator.takeOutput())
                let waiting = output.leave()
                // A burst is drawn as it ends, and every 20 ms while it lasts.
                let now = center.clock.now
                if waiting == 0 || now - lastScreen >= Self.screenInterval { screenChanged(now: now) }
            case .exited(let code):
                status = code
            }
        }
        logger.info("the program ended with status \(status)")
        perform(core.programEnded(status: status))
        // Each terminal is told and its stream closed before the keeper ends: `close` only begins
        // the close, and a keeper that exited with ENDED not yet written left the terminal saying
        // the link was lost (a lab test, once, under load). Its reader ends once the close is
        // answered, or after the close's 2 s.
        for joined in Array(terminals.values) {
            await joined.done?.value
            await joined.reader?.value
        }
        membership.cancel()
        timer?.cancel()
        pty.closeMaster()
        activity.invalidate()
        return status
    }

    // MARK: - Terminals

    public func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        let id = nextID
        nextID += 1
        let (outbox, queue) = AsyncStream<Outgoing>.makeStream()
        let joined = Joined(stream: stream, outbox: queue)
        joined.done = Task { @MainActor [weak joined] in
            for await item in outbox {
                switch item {
                case .message(let bytes):
                    do { try await stream.send(bytes) } catch { return }
                    joined?.queued -= 1
                case .close:
                    await stream.close()
                    return
                }
            }
        }
        terminals[id] = joined
        let origin: ShellKeeperCore.Origin = stream.peer.device == center.membership.identity.publicIdentity ? .thisDevice : .listedDevice
        logger.info("\(stream.peer.name) opened a stream (terminal \(id))")
        joined.reader = Task { @MainActor [weak self] in
            var first = true
            do {
                for try await bytes in stream.messages {
                    guard let self else { return }
                    let message: ShellMessage
                    do {
                        message = try ShellMessage(bytes: bytes)
                    } catch ShellMessage.ReadError.unknownKind {
                        continue
                    } catch {
                        self.logger.notice("terminal \(id): a message that does not read (\(error)); closing it")
                        break
                    }
                    let now = self.center.clock.now
                    if first { self.greeted.insert(id) }
                    self.perform(first ? self.core.join(id, origin: origin, hello: message, now: now) : self.core.receive(id, message, now: now))
                    first = false
                }
            } catch {
                self?.logger.info("terminal \(id): \(error)")
            }
            self?.ended(id)
        }
        // A stream that says nothing holds one of the few a keeper serves: 5 s for its hello.
        let clock = center.clock
        let deadline = clock.now + Self.helloTime
        Task { @MainActor [weak self] in
            try? await clock.sleep(until: deadline)
            guard let self, self.terminals[id] != nil, !self.greeted.contains(id) else { return }
            self.logger.notice("terminal \(id) sent no hello within \(Self.helloTime); closing it")
            self.ended(id)
        }
    }

    /// How long a terminal has for its first message.
    static let helloTime = Duration.seconds(5)

    /// A terminal's stream ended: it leaves, and its queue is closed.
    func ended(_ id: Int) {
        perform(core.left(id))
        terminals[id]?.outbox.yield(.close)
        terminals[id]?.outbox.finish()
        terminals[id] = nil
        greeted.remove(id)
        // Nobody attached: the keeper waits, running little of the code it ran to serve (unless
        // the program ended: then it is on its way out).
        if terminals.isEmpty, core.endedStatus == nil {
            let bytes = ProgramPages.giveBack()
            logger.debug("nobody attached: the pages of \(bytes / 1_048_576) MB of read-only mappings given back")
        }
    }

    /// A device removed from the list loses its terminals at once.
    func closeRemovedDevices() {
        for (id, joined) in terminals where center.membership.device(for: joined.stream.peer.senderID.tag) == nil {
            logger.notice("\(joined.stream.peer.name) was removed from the device list: its terminal is closed")
            ended(id)
        }
    }

    /// What the program showed is offered to the terminals.
    func screenChanged(now: ContinuousClock.Instant) {
        lastScreen = now
        guard emulator.hasChanges else { return }
        perform(core.screenChanged(emulator.screen))
        lookAtProgram()
    }

    /// How often the terminals are offered the screen while output keeps coming.
    static let screenInterval = Duration.milliseconds(20)

    func perform(_ actions: [ShellKeeperCore.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let message): terminals[id]?.post(message)
            case .close(let id):
                terminals[id]?.outbox.yield(.close)
                terminals[id]?.outbox.finish()
            case .type(let input):
                emulator.type(input)
                writeToProgram(emulator.takeOutput())
            case .resize(let rows, let columns):
                pty.resize(rows: rows, columns: columns)
                emulator.resize(rows: rows, columns: columns)
                publish()
                perform(core.screenChanged(emulator.screen))
            }
        }
        schedule()
    }

    private func writeToProgram(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        pty.write(bytes)
    }

    /// Ticks the core at its deadline (the time a question has to be answered).
    private func schedule() {
        timer?.cancel()
        guard let deadline = core.nextDeadline else { return }
        timer = Task { @MainActor [weak self] in
            guard let clock = self?.center.clock else { return }
            try? await clock.sleep(until: deadline)
            guard !Task.isCancelled, let self else { return }
            self.perform(self.core.tick(now: clock.now))
        }
    }
}

extension ShellKeeper {
    /// Hangs up the program, as closing its terminal would.
    public func hangUp() {
        pty.signal(SIGHUP)
    }
}
