import BatonShell
import FoundationEssentials
import Glibc
import Handoff
import HandoffWire
import HandoffCLI
import Logging
import ShellDisplay
import ShellHost

/// This terminal joined to a shell session: found on the network, opened as a continuation
/// stream, drawn by `ShellDisplay` and driven (or followed) through `ShellViewer`.
@MainActor
struct ShellTerminal {
    /// Which session to join.
    enum Opening {
        /// The one this command's keeper just started.
        case activity(String)
        /// The newest one this machine runs (`--attach`).
        case ownSession
    }

    let network: NetworkOptions
    let log: LogOptions

    /// Joins the network, finds the session, shows it until this terminal leaves; returns the
    /// status to exit with.
    func run(_ opening: Opening, role: ShellMessage.Role) async throws -> Int {
        let logger = try log.makeLogger()
        let joined = try await JoinedNetwork.join(network, app: "baton", version: Baton.version, logger: logger, mustBeOnline: true)
        let center = joined.center
        logger.info("joined the network; looking for the session")
        let found: NearbyActivity?
        switch opening {
        case .activity(let id): found = await Self.find(id, center: center, from: joined.peer.name, timeout: .seconds(5))
        case .ownSession: found = await center.findNearby(type: ShellKeeper.activityType, from: joined.peer.name, timeout: .seconds(2))
        }
        guard let found else {
            await joined.leave()
            switch opening {
            case .activity: throw CommandFailure("The session started, but this terminal could not find it on the network; try baton shell --attach.")
            case .ownSession: throw CommandFailure("No shell session of this machine's is running; start one with baton shell.")
            }
        }
        logger.info("found the session \(found.id) of \(found.record.peer.name)")
        do {
            let status = try await Self.join(found, center: center, name: joined.peer.name, role: role, logger: logger)
            await joined.leave()
            return status
        } catch {
            await joined.leave()
            throw error
        }
    }

    /// Joins the shell session `entry` (found nearby) as `role`; returns the status to exit with.
    static func join(_ entry: NearbyActivity, center: ActivityCenter, name: String, role: ShellMessage.Role, logger: Logger) async throws -> Int {
        let stream: ContinuationStream
        do {
            stream = try await Self.opening(logger) { () async throws(HandoffError) in try await center.openContinuationStream(to: entry) }
        } catch {
            throw CommandFailure("Cannot join the session on \(PeerText.visible(entry.record.peer.name)): \(error.description)")
        }
        return try await show(
            stream: stream, reopen: { () async throws(HandoffError) in try await center.openContinuationStream(to: entry) },
            keeperName: entry.record.peer.name, name: name, role: role, logger: logger)
    }

    /// Joins the shell session `activity` was continued from; returns the status to exit with.
    static func join(_ activity: UserActivity, center: ActivityCenter, name: String, role: ShellMessage.Role, logger: Logger) async throws -> Int {
        let keeper = activity.peer?.name ?? "its machine"
        let stream: ContinuationStream
        do {
            stream = try await Self.opening(logger) { () async throws(HandoffError) in try await activity.continuationStream() }
        } catch {
            throw CommandFailure("Cannot join the session on \(PeerText.visible(keeper)): \(error.description)")
        }
        return try await show(
            stream: stream, reopen: { () async throws(HandoffError) in try await activity.continuationStream() },
            keeperName: keeper, name: name, role: role, logger: logger)
    }

    /// Opens a stream with `open`, again after 1, 2 and 4 s while the keeper cannot be reached
    /// yet or is busy (a relay still connecting), never after a refusal (docs/PROTOCOL.md section 20).
    static func opening(
        _ logger: Logger, _ open: () async throws(HandoffError) -> ContinuationStream
    ) async throws(HandoffError) -> ContinuationStream {
        for pause in [1, 2, 4] {
            do {
                return try await open()
            } catch {
                guard case .continuationStream(_, let failure) = error else { throw error }
                switch failure {
                case .unreachable, .busy, .lost: break
                default: throw error
                }
                logger.info("the session's stream did not open (\(error.description)); again in \(pause) s")
            }
            do { try await Task.sleep(for: .seconds(pause)) } catch { throw .cancelled }
        }
        return try await open()
    }

    /// The activity `id` of this machine, once the network has it, or nil after `timeout`.
    static func find(_ id: String, center: ActivityCenter, from name: String, timeout: Duration) async -> NearbyActivity? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = center.nearby.first(where: { $0.id == id }) { return found }
            let left = deadline - ContinuousClock.now
            if let found = await center.findNearby(type: ShellKeeper.activityType, from: name, timeout: min(left, .milliseconds(500))),
               found.id == id {
                return found
            }
        }
        return center.nearby.first(where: { $0.id == id })
    }

    /// This terminal's size, for the keeper to start the program at; 24 × 80 when unknown.
    static func size() -> (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }
}
