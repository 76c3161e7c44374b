import BatonResources
import Foundation
import Testing
@testable import Handoff
@testable import PropertyList

@Suite("The declared type registry")
struct RegistryTests {
    @Test("The bundled registry declares Baton's two types with their schemas")
    func bundled() throws {
        let url = try #require(BatonResources.registryURL)
        let registry = try ActivityTypeRegistry(contentsOf: url)
        #expect(registry.declaredTypes == ["dev.baton.counter", "dev.baton.editing"])
        #expect(registry.schemas["dev.baton.counter"] == ActivitySchema(keyTypes: ["count": .integer], requiredKeys: ["count"]))
        #expect(registry.schemas["dev.baton.editing"]?.keyTypes["cursorColumn"] == .integer)
        #expect(registry.schemas["dev.baton.editing"]?.requiredKeys == ["text", "cursorLine", "cursorColumn"])
        #expect(registry == Fixtures.registry)
    }

    func load(_ text: String) throws(ActivityTypeRegistry.LoadError) -> ActivityTypeRegistry {
        try ActivityTypeRegistry(data: Data(text.utf8), path: "test.plist")
    }

    func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>\(body)</dict></plist>
        """
    }

    @Test("Malformed registry files give errors that say what to fix")
    func malformed() {
        #expect(throws: ActivityTypeRegistry.LoadError.self) { try load("this is not a plist <") }
        // OpenStep text, which Foundation would read, is not a registry format.
        #expect(throws: ActivityTypeRegistry.LoadError.notAPropertyList(path: "test.plist", reason: "it is neither XML nor a binary plist")) {
            try load("{ NSUserActivityTypes = (dev.baton.counter); }")
        }
        #expect(throws: ActivityTypeRegistry.LoadError.missingTypes(path: "test.plist")) {
            try load(plist("<key>Other</key><string>x</string>"))
        }
        #expect(throws: ActivityTypeRegistry.LoadError.missingTypes(path: "test.plist")) {
            try load(plist("<key>NSUserActivityTypes</key><array><integer>1</integer></array>"))
        }
        #expect(throws: ActivityTypeRegistry.LoadError.invalidType(path: "test.plist", type: "counter")) {
            try load(plist("<key>NSUserActivityTypes</key><array><string>counter</string></array>"))
        }
        #expect(throws: ActivityTypeRegistry.LoadError.unknownPlistType(path: "test.plist", type: "a.b", key: "n", value: "int")) {
            try load(plist("""
                <key>NSUserActivityTypes</key><array><string>a.b</string></array>
                <key>BatonActivitySchemas</key><dict><key>a.b</key><dict><key>n</key><string>int</string></dict></dict>
                """))
        }
        #expect(throws: ActivityTypeRegistry.LoadError.schemaForUndeclaredType(path: "test.plist", type: "x.y")) {
            try load(plist("""
                <key>NSUserActivityTypes</key><array><string>a.b</string></array>
                <key>BatonActivitySchemas</key><dict><key>x.y</key><dict/></dict>
                """))
        }
        let unreadable = #expect(throws: ActivityTypeRegistry.LoadError.self) {
            _ = try ActivityTypeRegistry(contentsOf: URL(fileURLWithPath: "/nonexistent/registry.plist"))
        }
        guard case .unreadable(let path, _)? = unreadable else {
            Issue.record("expected unreadable, got \(String(describing: unreadable))")
            return
        }
        #expect(path == "/nonexistent/registry.plist")
        let message = ActivityTypeRegistry.LoadError.unknownPlistType(path: "r.plist", type: "a.b", key: "n", value: "int").description
        #expect(message.contains("'n'") && message.contains("'int'") && message.contains("integer"))
    }

    @Test("A binary registry is read with the strict reader")
    func binary() throws {
        let value: PropertyListValue = .dictionary([
            "NSUserActivityTypes": ["dev.example.one"],
            "BatonActivitySchemas": .dictionary(["dev.example.one": .dictionary(["n": "real", "BatonRequiredKeys": ["n"]])]),
        ])
        let registry = try ActivityTypeRegistry(data: Data(BinaryPropertyListWriter().write(value)))
        #expect(registry.declaredTypes == ["dev.example.one"])
        #expect(registry.schemas["dev.example.one"] == ActivitySchema(keyTypes: ["n": .real], requiredKeys: ["n"]))
        #expect(throws: ActivityTypeRegistry.LoadError.self) {
            try ActivityTypeRegistry(data: Data(Array("bplist00".utf8) + [1, 2, 3]))
        }
    }

    @Test("Validation names the type, the key and both plist types")
    func validation() {
        let registry = Fixtures.registry
        #expect(throws: HandoffError.schemaViolation(type: "dev.baton.editing", key: "cursorLine", expected: .integer, actual: .string)) {
            try registry.validate(type: "dev.baton.editing", userInfo: ["text": "", "cursorLine": "1", "cursorColumn": 0])
        }
        #expect(throws: Never.self) {
            try registry.validate(type: "dev.baton.editing", userInfo: ["text": "", "cursorLine": 1, "cursorColumn": 0, "extra": [1]])
        }
        #expect(ActivityTypeRegistry.isValidActivityType("dev.baton.counter"))
        #expect(!ActivityTypeRegistry.isValidActivityType("counter"))
        #expect(!ActivityTypeRegistry.isValidActivityType("dev..counter"))
        #expect(!ActivityTypeRegistry.isValidActivityType("dev.baton.count er"))
    }
}
