import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Long jobs a program does beside its UI (encoding and hashing a 28 MB state, joining a 16 MB
/// text, writing a recovery copy), each on a thread of its own at a lower CPU priority (nice
/// 10): on a machine of two cores they would otherwise take turns with the thread that draws
/// the keys. The thread ends with the job, so no thread of a shared pool is left lowered.
public enum BackgroundWork {
    /// The nice value a job's thread runs at (Linux sets it per thread).
    public static let niceness: Int32 = 10

    /// Runs `work` on a new thread at `niceness` and returns what it made.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            startThread {
                lowerPriority()
                continuation.resume(returning: work())
            }
        }
    }

    /// Runs `body` on a new detached thread (a dispatch pool's thread when none can be made).
    package static func startThread(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Job(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        if started != 0 {
            Unmanaged<Job>.fromOpaque(box).release()
            DispatchQueue.global().async(execute: body)
        }
    }

    private final class Job {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Lowers the calling thread's CPU priority to `niceness`, unless it is lower already.
    static func lowerPriority() {
        #if os(Linux)
        // 0: the calling thread (Linux keeps the nice value per thread).
        let thread: id_t = 0
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread)
        if errno == 0, current >= niceness { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, niceness)
        #endif
    }
}
