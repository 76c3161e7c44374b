import CSchedule
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `handoff-bench wake [rounds]`: what this machine charges for the kernel's part of a key's
/// path, to read the other figures by: a system call, a page fault, and a wake-up, as the round
/// trip of one byte between two threads (and between two processes) over a pair of pipes, both
/// on one CPU, then on two. A key crosses several such wake-ups (the terminal's pty, the
/// program's threads, a socket between hosts), and which CPU each lands on is the scheduler's
/// choice, so the two figures bound what a hop costs here. Median of `rounds` runs, µs.
enum MachineBench {
    static let roundTrips = 10_000

    static func run(rounds: Int) throws {
        var allowed = cpu_set_t()
        guard sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &allowed) == 0 else {
            throw MachineBenchError.affinity(String(cString: strerror(errno)))
        }
        // The CPUs this process may run on (taskset or a cgroup may leave out some).
        var cpus: [Int32] = []
        withUnsafeBytes(of: allowed) { raw in
            for cpu in 0..<raw.count * 8 where raw[cpu / 8] & (1 << UInt8(cpu % 8)) != 0 { cpus.append(Int32(cpu)) }
        }
        print("this machine: \(ProcessInfo.processInfo.activeProcessorCount) CPUs, this process may use \(cpus.map(String.init).joined(separator: ", ")); median of \(rounds) rounds")
        let syscall = HandoffBench.measure(iterations: 200_000, rounds: rounds) { _ = getppid() }
        print(String(format: "  a system call (getppid)                          %8.2f µs", syscall))
        print(String(format: "  a page fault (a fresh anonymous page written)    %8.2f µs", pageFault(rounds: rounds) ?? .nan))
        var placements: [(String, Int32?, Int32?)] = [("as the scheduler places them", nil, nil)]
        if let first = cpus.first { placements.append(("both on CPU \(first)", first, first)) }
        if cpus.count > 1 { placements.append(("on CPUs \(cpus[0]) and \(cpus[1])", cpus[0], cpus[1])) }
        for (name, here, there) in placements {
            let padded = ("a byte there and back, " + name).padding(toLength: 56, withPad: " ", startingAt: 0)
            defer { _ = sched_setaffinity(0, MemoryLayout<cpu_set_t>.size, &allowed) }
            guard let threads = median(rounds, { threadRoundTrip(here: here, there: there) }),
                let processes = try median(rounds, { try processRoundTrip(here: here, there: there) })
            else {
                print("  \(padded)not measured: a thread or process could not be pinned there, or a pipe failed")
                continue
            }
            print("  \(padded)" + String(format: "threads %6.1f µs, processes %6.1f µs", threads, processes))
        }
    }

    enum MachineBenchError: Error { case affinity(String) }

    /// The child of `processRoundTrip`: echoes each byte of its input until it closes.
    static func echo() -> Never {
        var byte: UInt8 = 0
        while read(0, &byte, 1) == 1 { guard write(1, &byte, 1) == 1 else { break } }
        exit(0)
    }

    private static func median(_ rounds: Int, _ body: () throws -> Double?) rethrows -> Double? {
        var results: [Double] = []
        for _ in 0..<max(1, rounds) {
            guard let result = try body() else { return nil }
            results.append(result)
        }
        return results.sorted()[results.count / 2]
    }

    /// Pins the calling thread (`who` 0) or process `who` to one CPU.
    private static func pin(_ who: pid_t, to cpu: Int32?) -> Bool {
        guard let cpu else { return true }
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { $0[Int(cpu) / 8] |= UInt8(1 << (Int(cpu) % 8)) }
        return sched_setaffinity(who, MemoryLayout<cpu_set_t>.size, &set) == 0
    }

    private static func pageFault(rounds: Int) -> Double? {
        let pages = 25_600
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = pages * pageSize
        return median(rounds) { () -> Double? in
            guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                memory != MAP_FAILED
            else { return nil }
            defer { munmap(memory, size) }
            let bytes = memory.assumingMemoryBound(to: UInt8.self)
            let start = ContinuousClock.now
            for page in 0..<pages { bytes[page * pageSize] = 1 }
            return ReceiveBench.micros(ContinuousClock.now - start, per: pages)
        }
    }

    /// µs for one byte written to a thread that echoes it back, read here; nil when a thread
    /// could not be pinned where asked. The caller lets this thread run where it may again.
    private static func threadRoundTrip(here: Int32?, there: Int32?) -> Double? {
        var out: [Int32] = [0, 0], back: [Int32] = [0, 0]
        guard pipe(&out) == 0 else { return nil }
        guard pipe(&back) == 0 else {
            close(out[0])
            close(out[1])
            return nil
        }
        let (input, output) = (out[0], back[1])
        // Written by the echoing thread before it reads, read here once it has finished.
        final class Pinned: @unchecked Sendable { var ok = true }
        let pinnedThere = Pinned()
        let echoing = Thread {
            if !pin(0, to: there) { pinnedThere.ok = false }
            var byte: UInt8 = 0
            while read(input, &byte, 1) == 1 { guard write(output, &byte, 1) == 1 else { break } }
        }
        echoing.start()
        let elapsed = pin(0, to: here) ? trips(write: out[1], read: back[0]) : nil
        close(out[1])
        close(back[0])
        // The echoing thread sees its input close and returns; its ends are closed after it.
        while !echoing.isFinished { usleep(1_000) }
        close(out[0])
        close(back[1])
        return pinnedThere.ok ? elapsed : nil
    }

    /// µs for one byte written to a child process (this program again, `wake-echo`) that
    /// echoes it back, read here; nil when one of the two could not be pinned where asked.
    private static func processRoundTrip(here: Int32?, there: Int32?) throws -> Double? {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["wake-echo"]
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        let pinned = pin(child.processIdentifier, to: there) && pin(0, to: here)
        let elapsed = pinned
            ? trips(write: input.fileHandleForWriting.fileDescriptor, read: output.fileHandleForReading.fileDescriptor) : nil
        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        return elapsed
    }

    /// Warms up, then times `roundTrips` bytes there and back; nil when a write or read fails.
    private static func trips(write to: Int32, read from: Int32) -> Double? {
        var byte: UInt8 = 120
        for _ in 0..<200 { _ = write(to, &byte, 1); _ = read(from, &byte, 1) }
        let start = ContinuousClock.now
        for _ in 0..<roundTrips {
            guard write(to, &byte, 1) == 1, read(from, &byte, 1) == 1 else { return nil }
        }
        return ReceiveBench.micros(ContinuousClock.now - start, per: roundTrips)
    }
}
