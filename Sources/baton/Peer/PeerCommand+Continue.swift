import ArgumentParser
import FoundationEssentials
import Handoff
import HandoffCLI
import HandoffWire
import PropertyList

extension PeerCommand {
    struct Continue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask peers, continue the newest matching activity, and print it as JSON.",
            discussion: """
                The JSON holds activityID, type, revision, title, peer and userInfo, and how long it took: \
                continueMs (from asking peers to the record in hand, fetch included) and, when the record \
                was too large for a datagram and came over the state stream, fetchedBytes, fetchMs and \
                resumes (reconnections after a dropped connection).
                """)

        @OptionGroup var network: NetworkOptions

        @Option(help: "Only this activity type.")
        var type: String?

        @Option(help: "Only from the peer with this name (e.g. alice@laptop).")
        var from: String?

        @Option(help: "Seconds to wait for an answer.")
        var wait: Double = 2

        @Option(name: .customLong("save-text"), help: ArgumentHelp(
            "Write userInfo `text` of what was continued to this file, byte for byte (an editing session).",
            valueName: "path"))
        var saveText: String?

        @Flag(name: .customLong("no-user-info"), help: "Leave userInfo out of the JSON (for states of megabytes).")
        var noUserInfo = false

        @Flag(help: "Print the fetch's progress to standard error as it comes, one JSON object a line.")
        var progress = false

        @MainActor
        func run() async throws {
            let registry = try network.loadRegistry()
            // A type this program could never continue fails now, not after --wait seconds of asking.
            let type = try registry.continuableType(type, program: "baton peer")
            try await withPeerSession(network, registry: registry) { session in
                var last: TransferProgress?
                let printProgress = progress
                let started = ContinuousClock.now
                let activity: UserActivity
                do throws(HandoffError) {
                    activity = try await session.center.continueActivity(
                        type: type, from: from, timeout: .milliseconds(Int(wait * 1000))
                    ) { report in
                        last = report
                        if printProgress {
                            let line: [String: PropertyListValue] = [
                                "event": .string("progress"), "received": .integer(report.received),
                                "total": .integer(report.total), "ms": .integer(Self.milliseconds(report.elapsed)),
                                "resumes": .integer(report.resumes),
                            ]
                            Console.diagnostic(PropertyListValue.dictionary(line).jsonText + "\n")
                        }
                    }
                } catch {
                    // Nothing found may be a key no other machine shares: say so, and what to do.
                    throw CommandFailure(KeyAdvice.continueFailed(
                        error, otherKeySources: session.center.otherKeySources, keySource: session.keySource))
                }
                let elapsed = ContinuousClock.now - started
                if let saveText {
                    guard let text = activity.userInfo["text"]?.stringValue else {
                        throw CommandFailure("--save-text: the continued activity has no string userInfo 'text'.")
                    }
                    do {
                        try Data(text.utf8).write(to: URL(fileURLWithPath: saveText))
                    } catch {
                        throw CommandFailure("--save-text \(saveText): \(PlainText.reason(error))")
                    }
                }
                var out: [String: PropertyListValue] = [
                    "activityID": .string(activity.activityID), "type": .string(activity.activityType),
                    "revision": .integer(activity.revision), "peer": .string(activity.peer?.name ?? ""),
                    "continueMs": .integer(Self.milliseconds(elapsed)),
                ]
                if !noUserInfo { out["userInfo"] = .dictionary(activity.userInfo) }
                if let title = activity.title { out["title"] = .string(title) }
                if let last {
                    out["fetchedBytes"] = .integer(last.received)
                    out["fetchMs"] = .integer(Self.milliseconds(last.elapsed))
                    out["resumes"] = .integer(last.resumes)
                }
                printLine(PropertyListValue.dictionary(out).jsonText)
            }
        }

        static func milliseconds(_ duration: Duration) -> Int {
            let (seconds, attoseconds) = duration.components
            return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        }
    }
}
