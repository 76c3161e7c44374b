#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Dispatch
import BatonFiles
import Handoff
import HandoffWire
import HandoffStore
import PropertyList

/// The resolver of `baton kv policy resolve --command CMD` (docs/PROTOCOL.md, section 18,
/// "resolve"): runs `/bin/sh -c CMD` with `{"key", "winner", "loser", "ancestor"}` as JSON on its
/// standard input (each value as `baton kv get --json` prints it, `null` for a removal or an
/// ancestor not known) and reads the value to keep from its standard output, as JSON (`null`
/// removes the key). A non-zero exit, output that is not JSON, or more than `limit` seconds is no
/// answer: the store keeps keep both's result and says why (`ResolverSilence`).
///
/// The one place Baton starts a process for a store: the merge itself never does.
package struct ResolveCommand: Sendable {
    /// How long a command may take: 5 s, long enough for jq or a script, short enough that a
    /// conflict does not wait behind a command that hangs.
    package static let standardLimit: TimeInterval = 5
    /// Standard output read at most (a store's value is at most 1 MB, and JSON a few times that).
    static let outputLimit = 8 * 1_048_576

    package let command: String
    package var limit: TimeInterval
    package var shell = "/bin/sh"

    package init(_ command: String, limit: TimeInterval = ResolveCommand.standardLimit) {
        self.command = command
        self.limit = limit
    }

    /// The resolver for a store.
    package var resolver: KeyValueResolver { { conflict in try await self.resolve(conflict) } }

    /// Runs the command for `conflict`: the value it answers (nil: remove the key).
    package func resolve(_ conflict: KeyValueConflict) async throws(ResolverSilence) -> PropertyListValue? {
        let ran = await run(Data(Self.input(conflict).utf8))
        switch ran {
        case .failedToStart(let why):
            throw ResolverSilence(sentence: "the resolve command could not start: \(why)")
        case .tooSlow:
            throw ResolverSilence(sentence: "the resolve command gave no answer within \(PlainText.shortest(limit)) s")
        case .exited(let status, let output, let errors):
            guard status == 0 else {
                let said = String(decoding: errors.prefix(300), as: UTF8.self).split(separator: "\n").first.map { ": " + $0 } ?? ""
                throw ResolverSilence(sentence: "the resolve command exited with status \(status)\(said)")
            }
            return try Self.answer(from: output)
        }
    }

    /// The command's standard input: one line of JSON.
    package static func input(_ conflict: KeyValueConflict) -> String {
        func json(_ value: PropertyListValue?) -> String { value?.jsonText ?? "null" }
        return "{\"key\":\(PropertyListValue.string(conflict.key).jsonText),\"winner\":\(json(conflict.winner)),"
            + "\"loser\":\(json(conflict.loser)),\"ancestor\":\(json(conflict.ancestor))}\n"
    }

    /// The value in the command's standard output: JSON, `null` for a removal.
    package static func answer(from output: Data) throws(ResolverSilence) -> PropertyListValue? {
        let text = String(decoding: output, as: UTF8.self).trimmed()
        if text == "null" { return nil }
        do {
            return try PropertyListValue(json: Data(text.utf8))
        } catch {
            let shown = text.isEmpty ? "nothing" : "'" + PeerText.visible(String(text.prefix(60))) + (text.count > 60 ? "…'" : "'")
            throw ResolverSilence(sentence: "the resolve command's output is not JSON (it wrote \(shown))")
        }
    }

    // MARK: Running

    enum Ran: Sendable {
        case exited(status: Int32, output: Data, errors: Data)
        case tooSlow
        case failedToStart(String)
    }

    /// Runs the command with `input` on a thread of the dispatch pool; after `limit` its process
    /// group is ended (SIGTERM, then SIGKILL), so what the shell started ends too.
    func run(_ input: Data) async -> Ran {
        // A command that exits without reading its input must not end this program.
        signal(SIGPIPE, SIG_IGN)
        let (shell, command, limit) = (shell, command, limit)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let outcome = ChildProcess.run(
                    shell, ["-c", command], input: Array(input), timeout: .milliseconds(Int64(limit * 1000)),
                    outputLimit: Self.outputLimit, errorLimit: 4_096)
                switch outcome {
                case .exited(let status, let output, let errors):
                    continuation.resume(returning: .exited(status: status, output: Data(output), errors: Data(errors)))
                case .tooSlow:
                    continuation.resume(returning: .tooSlow)
                case .failedToStart(let why):
                    continuation.resume(returning: .failedToStart(why))
                }
            }
        }
    }
}
