#if canImport(Glibc)
import Glibc
#endif
import Foundation
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
            throw ResolverSilence(sentence: "the resolve command gave no answer within \(String(format: "%g", limit)) s")
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
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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

    /// Runs the command with `input`, and ends it (SIGTERM, then SIGKILL) after `limit`.
    func run(_ input: Data) async -> Ran {
        // A command that exits without reading its input must not end this program.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-c", command]
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let outcome = Outcome()
        return await withCheckedContinuation { continuation in
            outcome.continuation = continuation
            process.terminationHandler = { outcome.exited($0.terminationStatus) }
            do {
                try process.run()
            } catch {
                outcome.finish(.failedToStart(String(describing: error)))
                return
            }
            let queue = DispatchQueue.global()
            queue.async { outcome.read(output: stdout.fileHandleForReading.readData(upTo: Self.outputLimit)) }
            queue.async { outcome.read(errors: stderr.fileHandleForReading.readData(upTo: 4_096)) }
            queue.async {
                try? stdin.fileHandleForWriting.write(contentsOf: input)
                try? stdin.fileHandleForWriting.close()
            }
            queue.asyncAfter(deadline: .now() + limit) {
                guard outcome.finish(.tooSlow) else { return }
                process.terminate()
                queue.asyncAfter(deadline: .now() + 1) { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            }
        }
    }

    /// What the command did so far; the first complete outcome is the answer.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        var continuation: CheckedContinuation<Ran, Never>?
        private var status: Int32?
        private var output: Data?
        private var errors: Data?

        func exited(_ status: Int32) { lock.withLock { self.status = status }; check() }
        func read(output: Data) { lock.withLock { self.output = output }; check() }
        func read(errors: Data) { lock.withLock { self.errors = errors }; check() }

        private func check() {
            let done = lock.withLock { () -> Ran? in
                guard let status, let output, let errors else { return nil }
                return .exited(status: status, output: output, errors: errors)
            }
            if let done { finish(done) }
        }

        /// Answers with `ran` unless answered already; whether it did.
        @discardableResult
        func finish(_ ran: Ran) -> Bool {
            let waiting = lock.withLock { () -> CheckedContinuation<Ran, Never>? in
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(returning: ran)
            return waiting != nil
        }
    }
}

extension FileHandle {
    /// Reads until the end, or `limit` bytes.
    fileprivate func readData(upTo limit: Int) -> Data {
        var data = Data()
        while data.count < limit, let chunk = try? read(upToCount: min(65_536, limit - data.count)), !chunk.isEmpty {
            data += chunk
        }
        return data
    }
}
