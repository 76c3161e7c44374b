import FoundationEssentials
import Glibc
import Dispatch

/// How `baton monitor` and `baton kv watch` run: until Ctrl-C or SIGTERM, or for `duration`
/// when given, whichever comes first.
enum UntilStopped {
    @MainActor
    static func wait(duration: Duration?) async {
        let stop = AsyncStream<Void>.makeStream()
        let signals = [SIGINT, SIGTERM].map { signo -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .main)
            source.setEventHandler { stop.continuation.finish() }
            source.resume()
            return source
        }
        let timer = duration.map { duration in
            Task {
                try? await Task.sleep(for: duration)
                stop.continuation.finish()
            }
        }
        for await _ in stop.stream {}
        timer?.cancel()
        signals.forEach { $0.cancel() }
    }
}
