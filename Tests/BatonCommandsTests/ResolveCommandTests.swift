import BatonCommands
import Foundation
import HandoffStore
import PropertyList
import Testing

/// `baton kv policy resolve --command CMD`: the command run with `/bin/sh -c`, the conflict as
/// JSON on its standard input, the value to keep read from its output; what is no answer; and
/// the command saved for a store on this machine.
@MainActor
@Suite("kv policy resolve: the command that decides")
struct ResolveCommandTests {
    static let conflict = KeyValueConflict(key: "tags", winner: ["a", "b"], loser: ["b", "c"], ancestor: ["b"])

    /// What `command` answers for `conflict`, or why it gave none.
    func answer(_ command: String, limit: TimeInterval = 5, for conflict: KeyValueConflict = Self.conflict) async
        -> Result<PropertyListValue?, ResolverSilence>
    {
        do {
            return .success(try await ResolveCommand(command, limit: limit).resolve(conflict))
        } catch {
            return .failure(error)
        }
    }

    func silence(_ result: Result<PropertyListValue?, ResolverSilence>) -> String? {
        if case .failure(let silence) = result { return silence.sentence }
        return nil
    }

    @Test("The command reads the conflict as one line of JSON, values as kv get --json prints them, null for what is not")
    func input() async throws {
        #expect(
            ResolveCommand.input(Self.conflict) == #"{"key":"tags","winner":["a","b"],"loser":["b","c"],"ancestor":["b"]}"# + "\n")
        let removal = KeyValueConflict(key: "k", winner: 3, loser: nil, ancestor: nil)
        #expect(ResolveCommand.input(removal) == #"{"key":"k","winner":3,"loser":null,"ancestor":null}"# + "\n")
        // What the command read is what it was given: echoed back, it is the answer.
        let echoed = try await answer("cat").get()
        #expect(echoed == .dictionary(["key": "tags", "winner": ["a", "b"], "loser": ["b", "c"], "ancestor": ["b"]]))
    }

    @Test("A good answer is the value printed; null removes the key")
    func goodAnswer() async throws {
        #expect(try await answer(#"cat >/dev/null; printf '["a","b","c"]\n'"#).get() == ["a", "b", "c"])
        #expect(try await answer("cat >/dev/null; echo 42").get() == 42)
        #expect(try await answer("echo null").get() == nil, "a command that does not read its input answers all the same")
    }

    @Test("A non-zero exit is no answer, with its status and the first line it wrote on standard error")
    func nonZeroExit() async {
        let said = silence(await answer("echo 'jq: not found' >&2; exit 127"))
        #expect(said == "the resolve command exited with status 127: jq: not found")
        #expect(silence(await answer("echo 5; exit 1")) == "the resolve command exited with status 1")
    }

    @Test("Output that is not JSON is no answer, and says what was written")
    func invalidJSON() async {
        #expect(silence(await answer("echo not json")) == "the resolve command's output is not JSON (it wrote 'not json')")
        #expect(silence(await answer("true")) == "the resolve command's output is not JSON (it wrote nothing)")
    }

    @Test("A command slower than the limit is ended and is no answer (the limit made small here)")
    func tooSlow() async {
        #expect(silence(await answer("sleep 30; echo 1", limit: 0.2)) == "the resolve command gave no answer within 0.2 s")
        #expect(ResolveCommand.standardLimit == 5)
    }

    @Test("policy resolve --command saves the command for the store on this machine; policy shows it; running programs read it")
    func saved() async throws {
        let home = try KvHome()
        let machine = home.machine
        let editor = StoreName.named("editor")
        #expect(throws: KvFailure.self) { try machine.setPolicy(.resolve, of: editor) }
        #expect(try machine.policy(of: editor) == .newest, "resolve needs a command")
        try machine.setResolve(command: "cat >/dev/null; echo 7", of: editor)
        #expect(try machine.policy(of: editor) == .resolve && machine.file(editor).read()?.policy == .resolve)
        #expect(try machine.policyLine(of: editor) == "resolve (cat >/dev/null; echo 7)")
        #expect(try machine.policyLine(of: .standard) == "newest")
        let resolvers = ResolveCommand.resolvers(environment: home.environment)
        let editorResolver = try #require(resolvers("editor"))
        #expect(try await editorResolver(Self.conflict) == 7)
        let other = try #require(resolvers("baton"))
        await #expect(throws: ResolverSilence.self) { try await other(Self.conflict) }
        #expect(throws: KvFailure.self) { try machine.setResolve(command: "  ", of: editor) }
        try machine.setPolicy(.keepBoth, of: editor)
        #expect(try machine.policyLine(of: editor) == "keep-both")
        #expect(try ConflictPolicy(parsing: "resolve") == .resolve)
    }
}
