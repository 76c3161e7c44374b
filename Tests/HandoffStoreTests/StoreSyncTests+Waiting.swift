import Foundation
import HandoffTesting

/// How the store tests move virtual time while they wait.
extension StoreSyncTests {
    /// Moves `clock` on at each look until `condition` holds: virtual time passes only while the
    /// test looks, never faster than real time's looks (so that the state stream's timeouts,
    /// seconds of virtual time, are not outrun by a busy machine).
    ///
    /// A look moves the clock by `step`, or, when `network` carries nothing and the next sleeper
    /// is due within `jump`, to that sleeper: the protocol's own delays (an answer's 0–100 ms,
    /// an acknowledgement's 10 ms, the 250 ms between answers) then take one look each. A look
    /// is an `await`, and in a full unit run each waits behind the other tests' work on Swift's
    /// shared threads: 0.2–0.4 s apiece in the first 20 s of a run, where the clock moved 5 ms a
    /// look and a wait that needed a second of protocol time got through 40 ms of it in 60 s
    /// (beside two busy loops). The clock never jumps past a timeout of the state stream's
    /// (2 s and more) in one look.
    static func settle(
        _ clock: ManualClock, on network: InMemoryNetwork? = nil, step: Duration = .milliseconds(5),
        jump: Duration = .milliseconds(300), until condition: @MainActor () -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !(await MainActor.run(body: condition)) {
            if ContinuousClock.now >= deadline { return false }
            var move = step
            if let network, network.inFlight == 0, let next = clock.nextDeadline, next - clock.now > step, next - clock.now <= jump {
                move = next - clock.now
            }
            clock.advance(by: move)
            try? await Task.sleep(for: .milliseconds(2))  // wait-ok: the real pause between steps of virtual time
        }
        return true
    }

    /// The answer of `wait` (a wait for peers, with a timeout in virtual time), moving `clock` on
    /// meanwhile; a wait that does not end within the look's deadline is run out.
    static func awaiting(_ clock: ManualClock, on network: InMemoryNetwork? = nil, _ wait: @escaping @MainActor () async -> Bool) async -> Bool {
        var answer: Bool?
        let task = Task { @MainActor in answer = await wait() }
        let started = ContinuousClock.now
        let settled = await settle(clock, on: network, until: { answer != nil })
        // Where it stood, for a run that fails on a busy machine: how far virtual time got, and
        // what sleeps on it (this said 40 ms in 63 s when each look waited behind other tests).
        let look = "virtual \(clock.elapsed), real \(ContinuousClock.now - started), \(clock.sleeperCount) sleeping, "
            + "the next in \(clock.nextDeadline.map { "\($0 - clock.now)" } ?? "none")"
        if !settled {
            print("awaiting: no answer within settle's deadline: \(look)")
            clock.advance(by: .seconds(600))
        }
        await task.value
        if answer != true { print("awaiting: the wait answered \(answer.map(String.init(describing:)) ?? "nothing"): \(look)") }
        return answer ?? false
    }
}
