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
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        print("this machine: \(cpus) CPUs; median of \(rounds) rounds")
        let syscall = HandoffBench.measure(iterations: 200_000, rounds: rounds) { _ = getppid() }
        print(String(format: "  a system call (getppid)                          %8.2f µs", syscall))
        print(String(format: "  a page fault (a fresh anonymous page written)    %8.2f µs", pageFault(rounds: rounds)))
        var placements: [(String, Int32?, Int32?)] = [("as the scheduler places them", nil, nil), ("both on CPU 0", 0, 0)]
        if cpus > 1 { placements.append(("on CPUs 0 and 1", 0, 1)) }
        for (name, here, there) in placements {
            let threads = median(rounds) { threadRoundTrip(here: here, there: there) }
            let processes = try median(rounds) { try processRoundTrip(here: here, there: there) }
            let padded = ("a byte there and back, " + name).padding(toLength: 56, withPad: " ", startingAt: 0)
            print("  \(padded)" + String(format: "threads %6.1f µs, processes %6.1f µs", threads, processes))
        }
    }

    /// The child of `processRoundTrip`: echoes each byte of its input until it closes.
    static func echo() -> Never {
        var byte: UInt8 = 0
        while read(0, &byte, 1) == 1 { guard write(1, &byte, 1) == 1 else { break } }
        exit(0)
    }

    private static func median(_ rounds: Int, _ body: () throws -> Double) rethrows -> Double {
        var results: [Double] = []
        for _ in 0..<max(1, rounds) { results.append(try body()) }
        return results.sorted()[results.count / 2]
    }

    /// Pins the calling thread (`who` 0) or process `who` to one CPU.
    @discardableResult
    private static func pin(_ who: pid_t, to cpu: Int32?) -> Bool {
        guard let cpu else { return true }
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { $0[Int(cpu) / 8] |= UInt8(1 << (Int(cpu) % 8)) }
        return sched_setaffinity(who, MemoryLayout<cpu_set_t>.size, &set) == 0
    }

    /// Lets the calling thread run on every CPU again.
    private static func unpin() {
        var set = cpu_set_t()
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        withUnsafeMutableBytes(of: &set) { raw in for cpu in 0..<min(cpus, raw.count * 8) { raw[cpu / 8] |= UInt8(1 << (cpu % 8)) } }
        _ = sched_setaffinity(0, MemoryLayout<cpu_set_t>.size, &set)
    }

    private static func pageFault(rounds: Int) -> Double {
        let pages = 25_600
        let size = pages * 4096
        return median(rounds) {
            guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                memory != MAP_FAILED
            else { return .nan }
            defer { munmap(memory, size) }
            let bytes = memory.assumingMemoryBound(to: UInt8.self)
            let start = ContinuousClock.now
            for page in 0..<pages { bytes[page * 4096] = 1 }
            return microseconds(ContinuousClock.now - start) / Double(pages)
        }
    }

    private static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }

    /// µs for one byte written to a thread that echoes it back, read here.
    private static func threadRoundTrip(here: Int32?, there: Int32?) -> Double {
        var out: [Int32] = [0, 0], back: [Int32] = [0, 0]
        guard pipe(&out) == 0, pipe(&back) == 0 else { return .nan }
        let (input, output) = (out[0], back[1])
        let echoing = Thread {
            pin(0, to: there)
            var byte: UInt8 = 0
            while read(input, &byte, 1) == 1 { guard write(output, &byte, 1) == 1 else { break } }
        }
        echoing.start()
        pin(0, to: here)
        defer { unpin() }
        let elapsed = trips(write: out[1], read: back[0])
        close(out[1])
        close(back[0])
        // The echoing thread sees its input close and returns; its ends are closed after it.
        while !echoing.isFinished { usleep(1_000) }
        close(out[0])
        close(back[1])
        return elapsed
    }

    /// µs for one byte written to a child process (this program again, `wake-echo`) that
    /// echoes it back, read here.
    private static func processRoundTrip(here: Int32?, there: Int32?) throws -> Double {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: child.executableURL!.path) {
            child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        child.arguments = ["wake-echo"]
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        pin(child.processIdentifier, to: there)
        pin(0, to: here)
        defer { unpin() }
        let elapsed = trips(
            write: input.fileHandleForWriting.fileDescriptor, read: output.fileHandleForReading.fileDescriptor)
        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        return elapsed
    }

    /// Warms up, then times `roundTrips` bytes there and back.
    private static func trips(write to: Int32, read from: Int32) -> Double {
        var byte: UInt8 = 120
        for _ in 0..<200 { _ = write(to, &byte, 1); _ = read(from, &byte, 1) }
        let start = ContinuousClock.now
        for _ in 0..<roundTrips {
            guard write(to, &byte, 1) == 1, read(from, &byte, 1) == 1 else { return .nan }
        }
        return microseconds(ContinuousClock.now - start) / Double(roundTrips)
    }
}
