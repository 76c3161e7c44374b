import BatonFiles
import FoundationEssentials
import Glibc
import Dispatch
import Handoff
import HandoffWire
import HandoffCLI
import HandoffPairing

/// What `baton pair` prints while the session runs, and the person's y/N read from standard input.
extension PairCommand {
    /// The session's events and the answer, one at a time, in the order they came.
    enum Input: Sendable {
        case event(PairingEvent)
        /// One read of standard input; nil at its end (or on a read error).
        case answer(String?)
        /// The session closed its sockets: nothing more will come.
        case ended
    }

    /// Runs until the session ended: true when paired and the other device listed. `record`
    /// lists the other device with the statements to keep: it returns nil when it was new, a sentence to print when it was
    /// updated, and "" when it failed (having said why).
    static func converse(
        with session: PairingSession, joined: Bool, keyPath: String, keptOld: @Sendable () -> String? = { nil },
        refusal: @Sendable (PublicIdentity, String) -> PairingFailure? = { _, _ in nil },
        record: @Sendable (String, PublicIdentity, [[UInt8]]) -> String?
    ) async -> Bool {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        Task {
            for await event in session.events { feed.yield(.event(event)) }
            feed.yield(.ended)
        }
        var prompting = false
        var outcome: Bool?
        for await input in inputs {
            switch input {
            case .event(.found(let host, let port)):
                say("Found `baton pair` at \(host); connecting to its TCP port \(port)…")
            case .event(.otherVersion(let host, let version)):
                say(version < Pairing.version
                    ? "A machine at \(host) runs an older Baton (pairing version \(version)): update it."
                    : "A machine at \(host) runs a newer Baton (pairing version \(version)): update this one.")
            case .event(.code(_, let peerName, let peer)) where refusal(peer, peerName) != nil:
                // A removed machine, this one or the other: refused before anyone compares codes.
                session.refuse(refusal(peer, peerName)!)
            case .event(.code(let code, let peerName, let peer)):
                say("Pairing with \(PeerText.visible(peerName)), fingerprint \(peer.deviceID.fingerprint)")
                say("  (`baton id` on that machine shows its fingerprint.)")
                say("Code: \(code)")
                say("Same code on the other screen? [y/N] ", newline: false)
                prompting = true
                readAnswer(into: feed)
            case .event(.paired(let peerName, let peer, let statements)):
                say("Paired with \(PeerText.visible(peerName)) (fingerprint \(peer.deviceID.fingerprint))")
                let listed = record(peerName, peer, statements)
                if let listed, !listed.isEmpty { say(listed) }
                if joined {
                    say("\(keyPath) now holds the shared key.")
                    if let kept = keptOld() { say(KeyCommand.keptOld(kept, path: keyPath)) }
                    if let set = ProcessInfo.processInfo.environment["BATON_KEY"], !set.isEmpty {
                        say("BATON_KEY is set in this shell and takes the place of that file: unset it (unset BATON_KEY).")
                    }
                }
                outcome = listed != ""
            case .event(.failed(let failure)):
                if prompting { say("") }
                complain(failure.description)
                if let remedy = removedRemedy(failure) { complain("To pair it anyway, \(remedy).") }
                outcome = false
            case .event(.unreachable(let message)):
                complain(CommandFailure(message).description)
                outcome = false
            case .answer(let line):
                guard prompting, outcome == nil else { continue }
                prompting = false
                let answer = line?.split(separator: "\n").first.map { $0.trimmed(newlines: false).lowercased() }
                let yes = answer == "y" || answer == "yes"
                if line == nil { say("") }
                if yes { say("Waiting for the other screen…") }
                session.answer(yes)
            case .ended:
                return outcome ?? false
            }
        }
        return outcome ?? false
    }

    /// One read of standard input on a thread of its own, like a line typed at the prompt.
    static func readAnswer(into feed: AsyncStream<Input>.Continuation) {
        DispatchQueue(label: "baton.pair.answer").async {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            feed.yield(.answer(count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil))
        }
    }

    /// What to do when a removed machine was refused: it comes back only under a new identity.
    static func removedRemedy(_ failure: PairingFailure) -> String? {
        switch failure {
        case .otherRemoved(let name): DeviceIdentity.removedRemedy(machine: PeerText.visible(name))
        case .thisRemoved, .removedThere: DeviceIdentity.removedRemedy()
        case .otherRemovedThere: DeviceIdentity.removedRemedy(machine: "the other machine")
        default: nil
        }
    }

    static func complain(_ text: String) {
        Console.note(text)
    }
}
