import CPseudoterminal
import Foundation
import ShellDisplay
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal opened by the test (`posix_openpt`): a `ShellDisplay` on its slave end,
/// while the test types at the master end and collects what the display writes.
final class TestTerminal: @unchecked Sendable {
    let master: Int32
    let slave: Int32
    let display: ShellDisplay
    private let condition = NSCondition()
    private var collected: [UInt8] = []
    private var events: [ShellDisplayEvent] = []
    private var finished = false
    private let readerDone = DispatchSemaphore(value: 0)
    private var waiters: [UInt64: (condition: ([ShellDisplayEvent], Bool) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiter: UInt64 = 0

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    init(rows: Int, columns: Int) throws {
        let master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Unavailable(description: "no pseudo-terminal: \(String(cString: strerror(errno)))") }
        var name = [CChar](repeating: 0, count: 128)
        guard grantpt(master) == 0, unlockpt(master) == 0, ptsname_r(master, &name, name.count) == 0 else {
            Glibc.close(master)
            throw Unavailable(description: "the pseudo-terminal could not be set up")
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            Glibc.close(master)
            throw Unavailable(description: "the pseudo-terminal's other end could not be opened")
        }
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        self.master = master
        self.slave = slave
        do {
            display = try ShellDisplay(
                input: slave, output: slave, termType: "xterm-256color", locale: "C.UTF-8", handlesSignals: false)
        } catch {
            Glibc.close(slave)
            Glibc.close(master)
            throw error
        }
        let reader = Thread { [self] in
            readOutput()
            readerDone.signal()
        }
        reader.start()
        let stream = display.events()
        Task.detached { [weak self] in
            for await event in stream { self?.update { $0.events.append(event) } }
            self?.update { $0.finished = true }
        }
    }

    private func readOutput() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            update { $0.collected += buffer[0..<count] }
        }
    }

    private func update(_ change: (TestTerminal) -> Void) {
        condition.lock()
        change(self)
        var ready: [CheckedContinuation<Bool, Never>] = []
        for (id, waiter) in waiters where waiter.condition(events, finished) {
            waiters[id] = nil
            ready.append(waiter.continuation)
        }
        condition.broadcast()
        condition.unlock()
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Waits, without holding a thread (the events arrive through a task, which needs one),
    /// until `predicate(events, finished)` holds or the deadline passes; returns whether it held.
    func wait(
        timeout: Duration = .seconds(5), untilEvents predicate: @escaping ([ShellDisplayEvent], Bool) -> Bool
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            condition.lock()
            if predicate(events, finished) {
                condition.unlock()
                continuation.resume(returning: true)
                return
            }
            nextWaiter += 1
            let id = nextWaiter
            waiters[id] = (predicate, continuation)
            condition.unlock()
            Task { [weak self] in
                try? await Task.sleep(for: timeout)  // wait-ok: the deadline of a wait for events
                self?.expire(id)
            }
        }
    }

    private func expire(_ id: UInt64) {
        condition.lock()
        let waiter = waiters.removeValue(forKey: id)
        condition.unlock()
        waiter?.continuation.resume(returning: false)
    }

    /// Types `text`'s UTF-8 at the terminal.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Blocks until `predicate(output)` holds or `timeout` seconds pass; returns whether it
    /// held. The output is read on a thread of its own, so blocking here cannot starve it.
    func wait(timeout: TimeInterval = 5, untilOutput predicate: ([UInt8]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(collected) {
            if !condition.wait(until: deadline) { return predicate(collected) }
        }
        return true
    }

    var output: [UInt8] { condition.withLock { collected } }
    var received: [ShellDisplayEvent] { condition.withLock { events } }

    /// Gives the terminal back, then closes both ends once the reader has read all there was.
    func close() {
        display.shutdown()
        Glibc.close(slave)
        _ = readerDone.wait(timeout: .now() + 5)
        Glibc.close(master)
    }
}

extension Array where Element == UInt8 {
    /// Whether `text`'s UTF-8 occurs in these bytes.
    func contains(utf8 text: String) -> Bool {
        let needle = Array(text.utf8)
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// How many times `text`'s UTF-8 occurs in these bytes, not overlapping.
    func count(of text: String) -> Int {
        let needle = Array(text.utf8)
        guard !needle.isEmpty else { return 0 }
        var found = 0
        var index = 0
        while index + needle.count <= count {
            if self[index..<(index + needle.count)].elementsEqual(needle) {
                found += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return found
    }
}
