import Foundation

/// Samples a process's resident memory (`VmRSS` of `/proc/PID/status`) every `interval`
/// seconds on a thread of its own, until stopped.
final class MemorySampler: @unchecked Sendable {
    /// One reading: when, and the resident set in kilobytes.
    struct Sample: Sendable {
        let time: Date
        let kilobytes: Int
    }

    private let pid: pid_t
    private let interval: Double
    private let lock = NSLock()
    private var samples: [Sample] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t, interval: Double = 0.1) {
        self.pid = pid
        self.interval = interval
        Thread { [self] in
            while !lock.withLock({ stopped }) {
                if let kilobytes = Self.residentKilobytes(pid) {
                    lock.withLock { samples.append(Sample(time: Date(), kilobytes: kilobytes)) }
                }
                Thread.sleep(forTimeInterval: interval)  // wait-ok: the sampling period, not a wait for an event
            }
            done.signal()
        }.start()
    }

    /// Everything sampled so far.
    var readings: [Sample] { lock.withLock { samples } }

    /// Stops sampling; returns every reading.
    @discardableResult
    func stop() -> [Sample] {
        let wasRunning = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if wasRunning { done.wait() }
        return readings
    }

    /// `VmRSS` of `pid` in kilobytes, or nil when it cannot be read (the process ended).
    static func residentKilobytes(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }
}
