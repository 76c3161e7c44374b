import BatonShell
import Dispatch
import NIOCore
import Synchronization

/// The program's output on its way into the screen, and the lock around the emulator.
///
/// A read of a few bytes (an echo, a prompt) is parsed where it was read, on the engine's loop,
/// and the screen leaves from there with no other thread woken. A full read of the pty means
/// more waits behind it (a `cat` of a big file): from then on the reads are queued and parsed
/// on a thread of their own while the loop reads the next, until the queue is empty. libvterm's
/// parsing and the kernel's copies of the pty then take a core each, where one thread did both
/// in turn (in one process the two overlap almost wholly on this machine's two cores:
/// `bench/shell_bench.py`'s `cat`, BENCHMARKS.md). The parser's thread takes everything queued
/// as one run, and leaves unparsed the plain text in it that scrolls off unseen (`ScrolledText`):
/// most of a `cat` is then never parsed at all.
///
/// The thread sanitizer does not follow the standard library's `Mutex`: under
/// `swift test --sanitize=thread` it reports each access to the emulator from the two threads as
/// a race. With NIO's locks (pthread mutexes) in place of these two it reports none; they are not
/// kept, as the `cat` took 3 % longer with them.
///
/// What is queued is bounded: past `highWater` bytes the loop stops reading the pty (the program
/// then waits in its `write`, as it would behind a slow terminal) until the parser's thread takes
/// the queue; at most twice `highWater` is held, queued and being parsed.
final class OutputParser: Sendable {
    /// What a read came to.
    enum Taken: Equatable {
        /// Parsed at once; libvterm's answers to the program's queries, if it asked any.
        case parsed(answers: [UInt8])
        /// Queued for the parser's thread.
        case queued
        /// Queued, and the queue is full: stop reading until `resume` is called.
        case queuedStop
    }

    /// What waits for the parser's thread; its lock is held only to queue and take reads.
    private struct Queue: ~Copyable {
        var reads: [ByteBuffer] = []
        var bytes = 0
        /// The parser's thread has reads, or is finishing them: a new read goes behind them.
        var parsing = false
        /// Reading stopped at `highWater`.
        var stopped = false
    }

    /// The emulator's own lock, held while a read is parsed (and a run's skip is found, before its
    /// first read): the loop's screens and keys wait for one read at most, and never while it
    /// queues the next.
    private struct Screen: ~Copyable {
        let emulator: TerminalEmulator
    }

    /// A read at least this long is taken as a flood: the pty gives at most 4,095 bytes a read
    /// (the line discipline's buffer), so a full one says more is waiting.
    static let floodRead = 4000
    static let highWater = 256 * 1024

    private let queued = Mutex(Queue())
    private let screenState: Mutex<Screen>
    /// The parser's thread, one work item per run of queued reads.
    private let thread: DispatchQueue
    /// Called on the parser's thread: libvterm's answers for the program; the queue was taken
    /// after a stop; everything handed to it is parsed.
    private let answer: @Sendable ([UInt8]) -> Void
    private let resume: @Sendable () -> Void
    private let drained: @Sendable () -> Void

    /// A screen of `rows` × `columns`, and what the parser's thread calls (see `answer`, `resume`
    /// and `drained`). `thread` is a test's, suspended to hold reads in the queue.
    init(
        rows: Int, columns: Int, thread: DispatchQueue = DispatchQueue(label: "baton.keeper.output", qos: .userInitiated),
        answer: @escaping @Sendable ([UInt8]) -> Void, resume: @escaping @Sendable () -> Void, drained: @escaping @Sendable () -> Void
    ) {
        self.thread = thread
        screenState = Mutex(Screen(emulator: TerminalEmulator(rows: rows, columns: columns)))
        self.answer = answer
        self.resume = resume
        self.drained = drained
    }

    /// Whether the parser's thread has reads still to parse.
    var isParsing: Bool { queued.withLock { $0.parsing } }

    /// A read of the program's output, on the engine's loop (the only caller: nothing else queues).
    func take(_ buffer: ByteBuffer) -> Taken {
        let (taken, start) = queued.withLock { queue -> (Taken?, Bool) in
            if !queue.parsing, buffer.readableBytes < Self.floodRead { return (nil, false) }
            queue.reads.append(buffer)
            queue.bytes += buffer.readableBytes
            let start = !queue.parsing
            queue.parsing = true
            guard queue.bytes >= Self.highWater, !queue.stopped else { return (.queued, start) }
            queue.stopped = true
            return (.queuedStop, start)
        }
        guard let taken else { return .parsed(answers: parse(buffer)) }
        if start { thread.async { self.parseQueued() } }
        return taken
    }

    /// `buffer` into the screen; libvterm's answers to the program's queries in it.
    private func parse(_ buffer: ByteBuffer) -> [UInt8] {
        screenState.withLock { screen in
            buffer.withUnsafeReadableBytes { screen.emulator.write($0) }
            return screen.emulator.takeOutput()
        }
    }

    /// `reads` into the screen, in order, the lines among them that scroll off unseen left
    /// unparsed (`ScrolledText`); libvterm's answers to the program's queries in them. The
    /// emulator's lock is taken for each read, so the loop's screens and keys wait for one at most.
    private func parse(run reads: [ByteBuffer]) -> [UInt8] {
        // A resize between two reads of a run (under their own locks) may land on text left out:
        // the program draws again on the new size, as it does when a resize lands anywhere in a flood.
        var skip = 0
        var answers: [UInt8] = []
        for (index, read) in reads.enumerated() {
            screenState.withLock { screen in
                if index == 0 { skip = screen.emulator.skippable(in: reads) }
                skip = screen.emulator.write(read, skipping: skip)
                answers += screen.emulator.takeOutput()
            }
        }
        return answers
    }

    /// The parser's thread: every read queued, taken as one run, until none is left. Taking them
    /// all at once empties the queue, so reading goes on beside the parse, and a run of many
    /// reads lets the lines that scroll off before its end go unparsed.
    private func parseQueued() {
        var run: [ByteBuffer] = []
        while true {
            let resumes = queued.withLock { queue -> Bool in
                guard !queue.reads.isEmpty else {
                    queue.parsing = false
                    return false
                }
                swap(&run, &queue.reads)
                queue.bytes = 0
                let resumes = queue.stopped
                queue.stopped = false
                return resumes
            }
            // The queue's lock is not held while the run is parsed, nor once it is found empty:
            // a read queued meanwhile starts this again behind the current run.
            guard !run.isEmpty else { break }
            if resumes { resume() }
            let answers = parse(run: run)
            run.removeAll(keepingCapacity: true)
            if !answers.isEmpty { answer(answers) }
        }
        drained()
    }

    // MARK: - The emulator, under the lock

    /// The screen, when it changed since it was last read.
    func changedScreen() -> ShellScreen? {
        screenState.withLock { $0.emulator.hasChanges ? $0.emulator.screen : nil }
    }

    var screen: ShellScreen { screenState.withLock { $0.emulator.screen } }

    /// Bytes of output left unparsed because they scrolled off unseen (`ScrolledText`).
    var skippedBytes: Int { screenState.withLock { $0.emulator.skippedBytes } }

    /// `input` encoded for the program.
    func type(_ input: ShellInput) -> [UInt8] {
        screenState.withLock { screen in
            screen.emulator.type(input)
            return screen.emulator.takeOutput()
        }
    }

    /// The screen's new size; bytes for the program, if any.
    func resize(rows: Int, columns: Int) -> [UInt8] {
        screenState.withLock { screen in
            screen.emulator.resize(rows: rows, columns: columns)
            return screen.emulator.takeOutput()
        }
    }
}
