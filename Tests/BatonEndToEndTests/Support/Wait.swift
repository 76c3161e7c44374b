import Foundation

/// Waiting for a condition with a deadline, never for a fixed time.
enum Wait {
    /// Checks `probe` every `interval` seconds until it returns a value, and returns that value;
    /// throws `E2EError.timedOut` (with `lastSeen()`) when `timeout` seconds pass first.
    static func until<Value>(
        _ condition: String, timeout: Double, interval: Double = 0.02,
        lastSeen: () -> String = { "" }, _ probe: () throws -> Value?
    ) throws -> Value {
        let deadline = Date().addingTimeInterval(timeout)
        E2E.trace("waiting for \(condition)")
        while true {
            if let value = try probe() {
                E2E.trace("got \(condition)")
                return value
            }
            if Date() >= deadline {
                throw E2EError.timedOut(condition: condition, seconds: timeout, lastSeen: lastSeen())
            }
            Thread.sleep(forTimeInterval: interval)  // wait-ok: the polling interval of a wait with a deadline
        }
    }

    /// Like `until(_:timeout:interval:lastSeen:_:)` for a Boolean condition.
    static func until(
        _ condition: String, timeout: Double, interval: Double = 0.02,
        lastSeen: () -> String = { "" }, _ holds: () throws -> Bool
    ) throws {
        let _: Bool = try until(condition, timeout: timeout, interval: interval, lastSeen: lastSeen) {
            try holds() ? true : nil
        }
    }
}
