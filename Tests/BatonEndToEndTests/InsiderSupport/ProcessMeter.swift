import Foundation

/// What a process costs, sampled every `interval` seconds on a thread of its own: resident memory
/// (`VmRSS`), its peak (`VmHWM`) and the CPU time of all its threads in nanoseconds (the first
/// field of each `/proc/PID/task/TID/schedstat`, finer than `/proc/PID/stat`'s 10 ms ticks, so a
/// 100 ms window can tell 2 % of a core from nothing). The same measure as bench/insider_bench.py.
///
/// With `killAboveKilobytes`, a process whose `VmRSS` passes it is SIGKILLed and `killedAt`
/// says so: a guard for the machine, when a receiver runs away with memory (before issue 9, one
/// datagram could take a monitor to gigabytes). Always `stop()` it.
final class ProcessMeter: @unchecked Sendable {
    struct Sample: Sendable {
        let time: Date
        let residentKilobytes: Int
        let peakKilobytes: Int
        let cpuNanoseconds: UInt64
    }

    let pid: pid_t
    private let interval: Double
    private let killAbove: Int?
    private let lock = NSLock()
    private var samples: [Sample] = []
    private var killed: (time: Date, kilobytes: Int)?
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t, interval: Double = 0.05, killAboveKilobytes: Int? = 1024 * 1024) {
        self.pid = pid
        self.interval = interval
        self.killAbove = killAboveKilobytes
        Thread { [self] in
            while !lock.withLock({ stopped }) {
                if let sample = Self.sample(pid) {
                    lock.withLock { samples.append(sample) }
                    if let killAbove, sample.residentKilobytes > killAbove, lock.withLock({ killed == nil }) {
                        Foundation.kill(pid, SIGKILL)
                        lock.withLock { killed = (Date(), sample.residentKilobytes) }
                    }
                }
                Thread.sleep(forTimeInterval: interval)  // wait-ok: the sampling period, not a wait for an event
            }
            done.signal()
        }.start()
    }

    /// Every sample so far (from `since` on).
    func readings(since: Date? = nil) -> [Sample] {
        let all = lock.withLock { samples }
        guard let since else { return all }
        return all.filter { $0.time >= since }
    }

    /// When the guard killed the process, and at how many kilobytes; nil when it did not.
    var killedAt: (time: Date, kilobytes: Int)? { lock.withLock { killed } }

    /// The highest `VmHWM` read: the process's own peak, also between two samples.
    var peakKilobytes: Int { readings().map(\.peakKilobytes).max() ?? 0 }

    /// Stops sampling. Safe to call again.
    func stop() {
        let wasRunning = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if wasRunning { done.wait() }
    }

    /// % of one core used from `from` to `to`.
    func cpuPercent(from: Date, to: Date) -> Double {
        let span = readings(since: from).filter { $0.time <= to }
        guard let first = span.first, let last = span.last, last.time > first.time else { return .nan }
        let used = Double(last.cpuNanoseconds &- min(first.cpuNanoseconds, last.cpuNanoseconds)) / 1e9
        return 100 * used / last.time.timeIntervalSince(first.time)
    }

    /// CPU seconds used from `from` to `to`.
    func cpuSeconds(from: Date, to: Date) -> Double {
        let span = readings(since: from).filter { $0.time <= to }
        guard let first = span.first, let last = span.last else { return 0 }
        return Double(last.cpuNanoseconds &- min(first.cpuNanoseconds, last.cpuNanoseconds)) / 1e9
    }

    /// The first time from `start` on from which the process stays idle for `hold` seconds, or nil
    /// (so far). Idle: every `window` (100 ms, sliding from each sample) that starts in
    /// [t, t + hold − window] used at most `cpuLimit` (2 %) of one core — 2 ms of CPU per 100 ms —
    /// and `VmRSS` stayed within `residentMarginKilobytes` (10 MB) of `baselineKilobytes` at every
    /// sample in [t, t + hold]. bench/batonlab/meters.py's `idle_from` is the same rule.
    func idleSince(
        _ start: Date, baselineKilobytes: Int, window: Double = 0.1, hold: Double = 0.5, cpuLimit: Double = 0.02,
        residentMarginKilobytes: Int = 10 * 1024
    ) -> Date? {
        let points = readings(since: start)
        let times = points.map { $0.time.timeIntervalSince(start) }
        var busy: [Bool] = []
        for j in points.indices {
            var k = j
            while k < points.count - 1 && times[k] - times[j] < window { k += 1 }
            let span = times[k] - times[j]
            let used = Double(points[k].cpuNanoseconds &- min(points[j].cpuNanoseconds, points[k].cpuNanoseconds)) / 1e9
            busy.append(span < window / 2 || used > cpuLimit * span)
        }
        guard let end = times.last else { return nil }
        for i in points.indices {
            let t = times[i]
            guard end >= t + hold else { return nil }
            let quiet = points.indices.filter { $0 >= i && times[$0] <= t + hold - window }.allSatisfy { !busy[$0] }
            let small = points.indices.filter { $0 >= i && times[$0] <= t + hold }
                .allSatisfy { points[$0].residentKilobytes <= baselineKilobytes + residentMarginKilobytes }
            if quiet && small { return points[i].time }
        }
        return nil
    }

    /// Waits (up to `timeout` seconds) until the process has been idle for 0.5 s; returns its
    /// largest `VmRSS` over that half second, the baseline for `idleSince`.
    func waitForBaseline(timeout: Double = 10) throws -> Int {
        let started = Date()
        return try Wait.until("pid \(pid) to be idle before the flood", timeout: timeout, interval: 0.1) {
            let recent = readings(since: Date().addingTimeInterval(-0.7))
            guard let first = recent.first, first.time >= started,
                let floor = recent.map(\.residentKilobytes).min(),
                idleSince(first.time, baselineKilobytes: floor + 1024) != nil
            else { return nil }
            return recent.map(\.residentKilobytes).max()
        }
    }

    private static func sample(_ pid: pid_t) -> Sample? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kilobytes(_ key: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(key + ":") }?
                .split(separator: " ").compactMap { Int($0) }.first
        }
        guard let rss = kilobytes("VmRSS"), let hwm = kilobytes("VmHWM"),
            let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        else { return nil }
        var cpu: UInt64 = 0
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let value = UInt64(first)
            else { continue }
            cpu += value
        }
        return Sample(time: Date(), residentKilobytes: rss, peakKilobytes: hwm, cpuNanoseconds: cpu)
    }
}
