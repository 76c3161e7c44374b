import FoundationEssentials
import HandoffWire
import PropertyList

/// The `resolve` policy's second half (docs/PROTOCOL.md, section 18): the merge held keep both's
/// result and said what to resolve; here the program's resolver is asked, and its answer is
/// written as a new version of the key (replacing the winner, so it goes to every peer), keep
/// both's copy removed. No answer in time leaves keep both's result, said as `unresolved`.
extension KeyValueStore {
    /// Hands `resolution` to the resolver, with `resolverTimeout` to answer.
    func resolve(_ resolution: StoreContents.Resolution) {
        guard let resolver else { return unresolved(resolution, because: "no resolver is set") }
        resolutionCount += 1
        let id = resolutionCount
        pendingResolutions[id] = resolution
        let conflict = KeyValueConflict(
            key: resolution.key, winner: resolution.winner.value, loser: resolution.loser.value, ancestor: resolution.ancestor)
        let timeout = resolverTimeout
        let seconds = PlainText.shortest(timeout)
        clock.onMainActor(at: clock.now + .milliseconds(Int64((timeout * 1_000).rounded()))) { [weak self] in
            self?.finish(id, .failure(ResolverSilence(sentence: "the resolver gave no answer within \(seconds) s")))
        }
        Task { [weak self] in
            let answer: Result<PropertyListValue?, ResolverSilence>
            do {
                answer = .success(try await resolver(conflict))
            } catch let error as ResolverSilence {
                answer = .failure(error)
            } catch {
                answer = .failure(ResolverSilence(sentence: "the resolver failed: \(error)"))
            }
            self?.finish(id, answer)
        }
    }

    /// The resolver's answer, or why there is none; the first of the two counts.
    private func finish(_ id: Int, _ answer: Result<PropertyListValue?, ResolverSilence>) {
        guard let resolution = pendingResolutions.removeValue(forKey: id) else { return }
        switch answer {
        case .failure(let silence):
            unresolved(resolution, because: silence.sentence)
        case .success(let value):
            write(value, answering: resolution)
        }
    }

    /// Writes the answer as the key's new value (after the winner) and removes keep both's copy,
    /// in one write; a newer write of the key that came meanwhile stands.
    private func write(_ value: PropertyListValue?, answering resolution: StoreContents.Resolution) {
        guard contents[resolution.key]?.version == resolution.winner.version else {
            return unresolved(resolution, because: "a newer write of the key came before the answer")
        }
        var values: [String: PropertyListValue?] = [:]
        if value != contents[resolution.key]?.value { values.updateValue(value, forKey: resolution.key) }
        if let copy = resolution.fallback, contents[copy.key]?.version == copy.version { values.updateValue(nil, forKey: copy.key) }
        do {
            try setAll(values)
        } catch {
            return unresolved(resolution, because: "the answer cannot be written: \(error)")
        }
        emit(KeyValueStoreChange(reason: .resolved, keys: [resolution.key] + (resolution.fallback.map { [$0.key] } ?? [])))
        onNote?("store \(name): the conflict over \(resolution.key) was resolved")
    }

    private func unresolved(_ resolution: StoreContents.Resolution, because why: String) {
        let note = why + "; keep both's result stays"
        emit(KeyValueStoreChange(reason: .unresolved, keys: [resolution.key] + (resolution.fallback.map { [$0.key] } ?? []), note: note))
        onNote?("store \(name): the conflict over \(resolution.key) is not resolved: \(note)")
    }
}

/// Why a resolver gave no answer, as a sentence: a resolver may throw one to say it itself.
public struct ResolverSilence: Error, Sendable, Equatable, CustomStringConvertible {
    public let sentence: String

    public init(sentence: String) {
        self.sentence = sentence
    }

    public var description: String { sentence }
}
