import ArgumentParser
import BatonCommands
import HandoffStore
import Testing

/// The values `baton kv` takes on its command line, read and checked once by argument-parser.
@Suite("kv arguments: seconds, keys, store names and policies")
struct ArgumentTests {
    /// Options declared as the kv commands declare theirs.
    struct Probe: ParsableArguments {
        @Option(help: ArgumentHelp("Seconds.").defaulting(to: Seconds(2)), transform: { try Seconds.wait($0) })
        var wait = Seconds(2)

        @Option(transform: { try Seconds.running($0) })
        var duration: Seconds?

        @Option(transform: { try StoreName(parsing: $0) })
        var store = StoreName.standard

        @Argument(transform: { try StoreKey(parsing: $0) })
        var key: StoreKey

        @Argument(transform: { try ConflictPolicy(parsing: $0) })
        var policy: ConflictPolicy?
    }

    @Test("--wait takes 0 to 600 seconds as a Duration; anything else is a usage error")
    func wait() throws {
        #expect(try Seconds.wait("0").isZero)
        #expect(try Seconds.wait("1.5").duration == .milliseconds(1500))
        #expect(try Seconds.wait("600") == .longestWait)
        for refused in ["600.5", "-1", "nan", "inf", "abc", ""] {
            #expect(throws: ArgumentProblem("--wait must be between 0 and 600 seconds.")) { try Seconds.wait(refused) }
        }
        #expect(Seconds(0.5).description == "0.5 s")
        #expect(Seconds(2).description == "2 s")
    }

    @Test("--wait with --continue-activity is above 0; doctor's --listen is 0 to 600, each saying so")
    func answerAndListen() throws {
        #expect(try Seconds.answerWait("0.5") == Seconds(0.5))
        #expect(throws: ArgumentProblem("--wait must be between 0 and 600 seconds.")) { try Seconds.answerWait("0") }
        #expect(try Seconds.listen("0").isZero)
        #expect(throws: ArgumentProblem("--listen takes 0-600 seconds.")) { try Seconds.listen("601") }
    }

    @Test("--duration is above 0 seconds")
    func duration() throws {
        #expect(try Seconds.running("0.25").duration == .milliseconds(250))
        #expect(throws: ArgumentProblem.self) { try Seconds.running("0") }
        #expect(throws: ArgumentProblem.self) { try Seconds.running("-3") }
    }

    @Test("A key is 1-64 UTF-8 bytes, a store name also has no / or NUL and no leading dot, a policy is one of three")
    func names() throws {
        #expect(try StoreKey(parsing: String(repeating: "é", count: 32)).text.utf8.count == 64)
        #expect(throws: ArgumentProblem("The key is 65 bytes in UTF-8; a key is at most 64.")) {
            try StoreKey(parsing: String(repeating: "k", count: 65))
        }
        #expect(throws: ArgumentProblem.self) { try StoreKey(parsing: "") }
        #expect(try StoreName(parsing: "editor").text == "editor")
        for refused in ["", ".hidden", "a/b", "a\u{0}b", String(repeating: "s", count: 65)] {
            #expect(throws: ArgumentProblem.self) { try StoreName(parsing: refused) }
        }
        #expect(StoreName.standard.text == "baton")
        #expect(try ConflictPolicy(parsing: "keep-both") == .keepBoth)
        #expect(throws: ArgumentProblem.self) { try ConflictPolicy(parsing: "keep-all") }
        #expect(ConflictPolicy(argument: "keep-local") == .keepLocal)
        #expect(StoreKey(argument: "") == nil)
    }

    @Test("argument-parser refuses a bad value with exit status 64, saying why; good values arrive typed")
    func parsing() throws {
        let parsed = try Probe.parse(["theme", "keep-local", "--wait", "0.5", "--store", "editor", "--duration", "3"])
        #expect(parsed.key == .named("theme"))
        #expect(parsed.policy == .keepLocal)
        #expect(parsed.wait == Seconds(0.5))
        #expect(parsed.store == .named("editor"))
        #expect(parsed.duration?.duration == .seconds(3))
        let defaults = try Probe.parse(["theme"])
        #expect(defaults.wait == Seconds(2) && defaults.store == .standard && defaults.policy == nil && defaults.duration == nil)

        for arguments in [["theme", "--wait", "601"], ["theme", "--store", ".x"], [""], ["theme", "sometimes"], ["k", "--duration", "0"]] {
            do {
                _ = try Probe.parse(arguments)
                Issue.record("\(arguments) was taken")
            } catch {
                #expect(Probe.exitCode(for: error) == .validationFailure, "\(arguments)")
            }
        }
        do {
            _ = try Probe.parse(["theme", "--wait", "601"])
        } catch {
            #expect(Probe.message(for: error).hasSuffix(": --wait must be between 0 and 600 seconds."))
        }
    }

    @Test("An option read through a transform shows its default in its help as argument-parser does")
    func help() {
        #expect(Probe.helpMessage().contains("Seconds. (default: 2.0)"))
    }
}
