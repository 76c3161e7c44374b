import BatonShell
import Handoff
import HandoffCLI
import HandoffWire
import Logging
import ShellDisplay
import ShellHost

extension ShellTerminal {
    /// Shows the session on `stream` until this terminal leaves; returns the status to exit
    /// with, after saying on standard error why it ended (unless the program just ended). A link
    /// that drops is opened again with `reopen` after 1, 2, 4, then every 8 seconds, the last
    /// screen shown meanwhile with a line that says so, until it opens, is refused, or q.
    static func show(
        stream first: ContinuationStream, reopen: @escaping @MainActor () async throws(HandoffError) -> ContinuationStream,
        keeperName: String, name: String, role: ShellMessage.Role, logger: Logger
    ) async throws -> Int {
        // The terminal's input goes from its thread to the session's viewer (or, while the link is
        // opened again, to q): no task between.
        logger.info("the session's stream is open; showing it")
        let input = ShellInputRouter()
        let display: ShellDisplay
        do {
            display = try ShellDisplay(onEvent: { event in
                switch event {
                case .input(let typed): input.handle(.input(typed))
                case .resize(let rows, let columns): input.handle(.resize(rows: rows, columns: columns))
                }
            })
        } catch {
            await first.close()
            throw CommandFailure("\(error)")
        }
        let keeper = PeerText.visible(keeperName)
        var stream = first
        var screen: ShellScreen?
        var ending = ShellViewerCore.Ending.detached
        connections: while true {
            let size = display.size
            let core = ShellViewerCore(role: role, name: name, keeperName: keeper, rows: size.rows, columns: size.columns)
            let viewer = ShellViewer(stream: stream, core: core) { screen, status in display.show(screen, status: status) }
            input.attach { viewer.deliver($0) }
            ending = await viewer.run()
            input.detach()
            screen = await viewer.screen ?? screen
            guard case .lost(let reason) = ending else { break }
            logger.info("the link to the session was lost (\(reason)); opening it again")
            var pause = 1
            while true {
                let shown = screen ?? ShellScreen(rows: size.rows, columns: size.columns)
                display.show(shown, status: "The link to \(keeper) was lost; trying again in \(pause) s…  q leaves")
                if await input.waitOrLeave(seconds: pause) {
                    ending = .detached
                    break connections
                }
                do {
                    stream = try await reopen()
                    continue connections
                } catch {
                    guard case .continuationStream(_, let failure) = error else { ending = .broken(error.description); break connections }
                    switch failure {
                    case .unreachable, .busy, .lost: pause = min(pause * 2, 8)
                    default:
                        ending = .broken(error.description)
                        break connections
                    }
                }
            }
        }
        display.shutdown()
        logger.info("left the shell session: \(ending)")
        switch ending {
        case .detached:
            Console.diagnostic("baton: left the session on \(keeper); it goes on there (baton shell --attach on that machine, or baton --continue-activity dev.baton.shell, brings it back).")
            return 0
        case .ended(let status):
            return status
        case .refused(let reason):
            Console.diagnostic("baton: \(keeper) did not let this terminal take the session: \(PeerText.visible(reason)).")
            return 1
        case .broken(let reason), .lost(let reason):
            Console.diagnostic("baton: the session on \(keeper) was lost (\(PeerText.visible(reason))); it may go on there.")
            return 1
        }
    }
}
