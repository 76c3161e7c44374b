import BatonShell
import Dispatch
import HandoffTesting
import NIOCore
@testable import ShellHost
import Synchronization
import Testing

/// The program's output into the screen: small reads parsed where they are read, a flood queued
/// for the parser's thread in order, reading stopped while the queue is full.
@MainActor
@Suite("The keeper's output parser")
struct OutputParserTests {
    /// What the parser's thread reported.
    final class Reports: Sendable {
        let answers = Mutex<[UInt8]>([])
        let resumes = Atomic<Int>(0)
        let drains = Atomic<Int>(0)
    }

    static func parser(_ reports: Reports, thread: DispatchQueue) -> OutputParser {
        OutputParser(
            rows: 6, columns: 30, thread: thread,
            answer: { bytes in reports.answers.withLock { $0 += bytes } },
            resume: { reports.resumes.add(1, ordering: .sequentiallyConsistent) },
            drained: { reports.drains.add(1, ordering: .sequentiallyConsistent) })
    }

    /// A parser whose thread is held (a suspended queue: resume it to parse), what it reports, and
    /// an emulator of the same size to parse the same reads inline.
    static func held() -> (DispatchQueue, Reports, OutputParser, TerminalEmulator) {
        let thread = DispatchQueue(label: "test.parser")
        thread.suspend()
        let reports = Reports()
        return (thread, reports, parser(reports, thread: thread), TerminalEmulator(rows: 6, columns: 30))
    }

    /// A read of `text`, padded with spaces to `length` bytes when it is shorter.
    static func read(_ text: String, length: Int = 0) -> ByteBuffer {
        var bytes = Array(text.utf8)
        if bytes.count < length { bytes += [UInt8](repeating: 0x20, count: length - bytes.count) }
        return ByteBuffer(bytes: bytes)
    }

    @Test("A short read is parsed at once; a full one and everything after it wait for the parser's thread, in order")
    func floodQueued() async {
        let (thread, reports, parser, inline) = Self.held()

        var reads = [Self.read("hello\r\n")]
        #expect(parser.take(reads[0]) == .parsed(answers: []))
        #expect(parser.changedScreen()?.text(ofRow: 0).hasPrefix("hello") == true)
        #expect(!parser.isParsing)

        // A full read, a short one behind it, and a query the parser's thread answers.
        reads += [Self.read("flood", length: OutputParser.floodRead), Self.read("\r\nafter\u{1b}[c\r\n")]
        #expect(parser.take(reads[1]) == .queued)
        #expect(parser.take(reads[2]) == .queued)
        #expect(parser.isParsing)
        #expect(parser.changedScreen() == nil)

        thread.resume()
        #expect(await waitUntil { reports.drains.load(ordering: .sequentiallyConsistent) == 1 })
        #expect(!parser.isParsing)
        for read in reads { inline.write(Array(read.readableBytesView)) }
        let screen = parser.changedScreen()
        #expect(screen == inline.screen)
        #expect(screen?.text.contains("after") == true)
        #expect(reports.answers.withLock { $0 } == inline.takeOutput())
        #expect(reports.answers.withLock { !$0.isEmpty })

        // Caught up: a short read is parsed at once again.
        #expect(parser.take(Self.read("x")) == .parsed(answers: []))
        #expect(reports.resumes.load(ordering: .sequentiallyConsistent) == 0)
    }

    @Test("Past the high mark the loop is told to stop reading, once; it is told to read again once the parser takes the queue")
    func stopsAndResumes() async {
        let (thread, reports, parser, inline) = Self.held()
        let full = OutputParser.highWater / 4096
        var stops: [Int] = []
        for index in 0..<(full + 8) {
            let read = Self.read("\(index)\r\n", length: 4096)
            inline.write(Array(read.readableBytesView))
            if parser.take(read) == .queuedStop { stops.append(index) }
        }
        #expect(stops == [full - 1])
        #expect(reports.resumes.load(ordering: .sequentiallyConsistent) == 0)
        thread.resume()
        #expect(await waitUntil { reports.drains.load(ordering: .sequentiallyConsistent) == 1 })
        #expect(reports.resumes.load(ordering: .sequentiallyConsistent) == 1)
        #expect(parser.changedScreen() == inline.screen)
    }
}
