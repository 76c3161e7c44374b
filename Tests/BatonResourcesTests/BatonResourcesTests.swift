import Foundation
import Handoff
import PropertyList
import Testing
import BatonResources

/// The registry compiled into the programs: the file under Resources/ as it is, and what it declares.
@Suite("BatonResources: the compiled-in registry")
struct BatonResourcesTests {
    @Test("The compiled-in registry is Resources/Registry/ActivityTypes.plist byte for byte, and declares Baton's three types with their schemas")
    func compiledIn() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/Registry/ActivityTypes.plist")
        #expect(BatonResources.registryData == (try Data(contentsOf: source)))
        let registry = try ActivityTypeRegistry(data: BatonResources.registryData, path: BatonResources.registryName)
        #expect(registry.declaredTypes == ["dev.baton.counter", "dev.baton.editing", "dev.baton.shell"])
        #expect(registry.schemas["dev.baton.counter"] == ActivitySchema(keyTypes: ["count": .integer], requiredKeys: ["count"]))
        #expect(registry.schemas["dev.baton.editing"]?.keyTypes["cursorColumn"] == .integer)
        #expect(registry.schemas["dev.baton.editing"]?.requiredKeys == ["text", "cursorLine", "cursorColumn"])
        #expect(registry.schemas["dev.baton.shell"] == ActivitySchema(
            keyTypes: ["folder": .string, "command": .string, "rows": .integer, "columns": .integer],
            requiredKeys: ["folder", "command", "rows", "columns"]))
    }

    @Test("Issue 38's keys are optional and typed: a selection's mark, the search and its options, the display toggles")
    func editorDisplayKeys() throws {
        let registry = try ActivityTypeRegistry(data: BatonResources.registryData, path: BatonResources.registryName)
        let schema = try #require(registry.schemas["dev.baton.editing"])
        let expected: [String: PropertyListType] = [
            "markLine": .integer, "markColumn": .integer, "searchText": .string, "searchCaseSensitive": .boolean,
            "searchRegexp": .boolean, "lineNumbers": .boolean, "softWrap": .boolean, "constantShow": .boolean,
        ]
        for (key, type) in expected {
            #expect(schema.keyTypes[key] == type, "\(key)")
            #expect(!schema.requiredKeys.contains(key), "\(key) is required")
        }
        var info: [String: PropertyListValue] = ["text": "a\nb", "cursorLine": 0, "cursorColumn": 0]
        try schema.validate(type: "dev.baton.editing", userInfo: info)
        info["softWrap"] = 1
        #expect(throws: HandoffError.self) { try schema.validate(type: "dev.baton.editing", userInfo: info) }
    }

    @Test("The optional lineEnding key: checked as a string when present, and a schema without it (an older peer) accepts it")
    func optionalLineEnding() throws {
        let registry = try ActivityTypeRegistry(data: BatonResources.registryData, path: BatonResources.registryName)
        let schema = try #require(registry.schemas["dev.baton.editing"])
        #expect(schema.keyTypes["lineEnding"] == .string)
        #expect(!schema.requiredKeys.contains("lineEnding"))
        let base: [String: PropertyListValue] = ["text": "a\nb", "cursorLine": 0, "cursorColumn": 0]
        var withCRLF = base
        withCRLF["lineEnding"] = "crlf"
        try schema.validate(type: "dev.baton.editing", userInfo: base)
        try schema.validate(type: "dev.baton.editing", userInfo: withCRLF)
        var wrongType = base
        wrongType["lineEnding"] = 1
        #expect(throws: HandoffError.self) { try schema.validate(type: "dev.baton.editing", userInfo: wrongType) }
        var older = schema
        older.keyTypes["lineEnding"] = nil
        try older.validate(type: "dev.baton.editing", userInfo: withCRLF)
    }
}
