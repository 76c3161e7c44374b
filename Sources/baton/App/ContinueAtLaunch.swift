import BatonApp
import FoundationEssentials
import Glibc
import Dispatch
import HandoffCLI
import Handoff
import NCursesBackend

/// `--continue-activity` before the UI opens: finds the activity and continues it, with a
/// progress line on stderr while a large record is fetched (`ProgressLine`: only after
/// 200 ms, redrawn in place on a terminal, cleared before the UI starts). Until the first byte
/// the line says it is connecting, as the in-app overlay does, so a source whose state stream
/// does not answer leaves no blank terminal; once bytes stop coming for a while, it says it is
/// waiting in place of its rate. Esc (`EscapeKeyWatch`), Ctrl-C or SIGTERM stops it
/// with nothing restored and no UI.
@MainActor
enum ContinueAtLaunch {
    enum Outcome {
        case continued(UserActivity)
        case failed(HandoffError)
        /// The signal that stopped it.
        case interrupted(Int32)
    }

    /// The progress line, shared with the center's progress callback.
    private final class Line {
        var progress: ProgressLine
        init(_ progress: ProgressLine) { self.progress = progress }
    }

    static func run(center: ActivityCenter, type: String?, from peer: String?, timeout: Duration) async -> Outcome {
        let isTerminal = isatty(STDERR_FILENO) == 1
        let (outcomes, outcome) = AsyncStream<Outcome>.makeStream()
        // Esc cancels, as in the app; keys typed meanwhile are dropped, not echoed onto the line.
        let escape = EscapeKeyWatch { outcome.yield(.failed(.cancelled)) }
        let line = Line(ProgressLine(
            isTerminal: isTerminal, width: NCursesBackend.columns(of: STDERR_FILENO) ?? 80,
            hint: escape == nil ? nil : "Esc cancels"))
        let write = { (text: String?) in if let text { writeToStandardError(text) } }
        let task = Task { @MainActor in
            do throws(HandoffError) {
                guard let found = await center.findNearby(type: type, from: peer, timeout: timeout) else {
                    throw HandoffError.notFound(
                        type: type, peer: peer, waited: timeout, endpoint: center.transport.endpointDescription)
                }
                // Until the first byte of a large record: the connecting line, once it is due.
                let started = ContinuousClock.now
                let connecting = found.offer == nil ? nil : Task { @MainActor in
                    try? await Task.sleep(for: BatonApp.continueOverlayDelay)
                    guard !Task.isCancelled else { return }
                    write(line.progress.waiting(
                        elapsed: ContinuousClock.now - started, total: found.stateSize, peerName: found.record.peer.name))
                }
                // While bytes stop coming (a link down, the source tried again), the line says so.
                let quiet = found.offer == nil ? nil : Task { @MainActor in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(250))
                        guard !Task.isCancelled else { return }
                        write(line.progress.quiet(elapsed: ContinuousClock.now - started))
                    }
                }
                defer {
                    connecting?.cancel()
                    quiet?.cancel()
                }
                let activity = try await center.continueActivity(found) { progress in
                    write(line.progress.update(progress))
                }
                outcome.yield(.continued(activity))
            } catch {
                outcome.yield(.failed(error))
            }
        }
        // The default action of SIGINT would end the process with the line still drawn.
        let interrupts = [SIGINT, SIGTERM]
        let sources = interrupts.map { signo -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .main)
            source.setEventHandler { outcome.yield(.interrupted(signo)) }
            source.resume()
            return source
        }
        var result = Outcome.failed(.cancelled)
        for await first in outcomes {
            result = first
            break
        }
        for source in sources { source.cancel() }
        escape?.stop()
        // Back to the defaults, which the UI's own handlers then replace.
        for signo in interrupts { signal(signo, SIG_DFL) }
        switch result {
        case .interrupted, .failed(.cancelled): task.cancel()
        default: break
        }
        let succeeded = if case .continued = result { true } else { false }
        if let text = line.progress.finish(succeeded: succeeded) { writeToStandardError(text) }
        if case .interrupted = result, isTerminal {
            writeToStandardError("\r")  // the message then covers the "^C" the terminal echoed
        }
        return result
    }

    static func writeToStandardError(_ text: String) {
        Console.diagnostic(text)
    }
}
