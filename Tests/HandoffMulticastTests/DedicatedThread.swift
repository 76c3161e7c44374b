import Foundation

/// Runs `body` on a new thread of its own, so switching its namespace touches no shared thread.
func onDedicatedThread<Value: Sendable>(
    _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}
