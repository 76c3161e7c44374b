import Foundation
import Handoff
import HandoffCLI
import Testing

/// `--continue-activity TYPE` and `baton peer continue --type TYPE` with a type this program does not declare.
@Suite("A type to continue that is not declared")
struct ContinueTypeTests {
    static let registry = ActivityTypeRegistry(declaredTypes: ["dev.baton.counter", "dev.baton.editing"])

    @Test("--continue-activity with a type the registry does not declare fails at once, naming the declared ones")
    func undeclaredContinueType() {
        let failure = #expect(throws: CommandFailure.self) {
            try Self.registry.checkContinuable("org.other.counter", program: "baton")
        }
        #expect(failure?.description.hasPrefix(
            "org.other.counter is not an activity type this baton declares; the declared types are: dev.baton.counter, dev.baton.editing.")
            == true)
        #expect(failure?.description.contains("Did you mean dev.baton.counter?") == true)
        let bogus = #expect(throws: CommandFailure.self) {
            try Self.registry.checkContinuable("dev.baton.bogus", program: "baton peer")
        }
        #expect(bogus?.description.hasPrefix("dev.baton.bogus is not an activity type this baton peer declares") == true)
        #expect(bogus?.description.contains("--registry FILE") == true)
        #expect(throws: Never.self) { try Self.registry.checkContinuable("dev.baton.editing", program: "baton") }
        #expect(throws: Never.self) { try Self.registry.checkContinuable(nil, program: "baton") }
        // Peer-chosen text never reaches the terminal raw, even in a type typed by hand.
        let hostile = #expect(throws: CommandFailure.self) {
            try Self.registry.checkContinuable("x\u{1B}[2J", program: "baton")
        }
        #expect(hostile?.description.contains("\u{1B}") == false)
    }

    @Test("A type's last label alone is taken as the one declared type it ends; two that end with it are named")
    func lastLabel() throws {
        #expect(try Self.registry.continuableType("counter", program: "baton") == "dev.baton.counter")
        #expect(try Self.registry.continuableType("Editing", program: "baton") == "dev.baton.editing")
        #expect(try Self.registry.continuableType("dev.baton.editing", program: "baton") == "dev.baton.editing")
        #expect(try Self.registry.continuableType(nil, program: "baton") == nil)
        let two = ActivityTypeRegistry(declaredTypes: ["dev.baton.counter", "org.other.counter"])
        let failure = #expect(throws: CommandFailure.self) { try two.continuableType("counter", program: "baton") }
        #expect(failure?.description.contains("Did you mean dev.baton.counter or org.other.counter?") == true)
        #expect(throws: CommandFailure.self) { try Self.registry.continuableType("count", program: "baton") }
    }
}
