import Foundation
import Testing

/// Runs each test case of a suite on threads of its own instead of the cooperative pool.
///
/// The lab tests are synchronous: they start programs in namespaces and wait for what those
/// print, polling with deadlines. On the shared pool each one holds a pool thread while it
/// waits, and the pool has as many threads as the machine has cores, so on two cores two lab
/// tests ran at a time and the run was waiting, not working (a third of one core busy). Here
/// a test that waits holds only its own thread; how many run at once is Swift Testing's width
/// (twice the cores unless `SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH` says otherwise), and
/// `.serialized` suites still run one test at a time.
struct OwnThread: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope runs no test body: only test cases move off the pool.
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) {
            try await function()
        }
    }
}

extension Trait where Self == OwnThread {
    /// Each test case runs on threads of its own, so that its blocking waits leave the
    /// cooperative pool to the others.
    static var ownThread: Self { OwnThread() }
}

/// A task executor that runs every job on a new thread. A synchronous test body is one job
/// from its start to its end, so it has one thread to itself for as long as it blocks;
/// the task's locals (the current test, where `#expect` records) go with the job.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        // The lab tests' stacks are shallow, but a test's body is one frame deeper than on the pool.
        thread.stackSize = 8 << 20
        thread.start()
    }
}
