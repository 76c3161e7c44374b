import BatonResources
import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import PropertyList
import PropertyListFoundation

@Suite("The declared type registry")
struct RegistryTests {
    @Test("The tests' registry is the one compiled into the programs")
    func fixtureIsCompiledIn() throws {
        #expect(try ActivityTypeRegistry(data: BatonResources.registryData, path: BatonResources.registryName) == Fixtures.registry)
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

    /// An app's Info.plist as Xcode keeps it: intent class names beside the activity types,
    /// build variables, a scene manifest, booleans.
    static let appInfoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>CFBundleDevelopmentRegion</key>
        	<string>$(DEVELOPMENT_LANGUAGE)</string>
        	<key>CFBundleExecutable</key>
        	<string>$(EXECUTABLE_NAME)</string>
        	<key>CFBundleIdentifier</key>
        	<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
        	<key>CFBundleShortVersionString</key>
        	<string>$(MARKETING_VERSION)</string>
        	<key>LSRequiresIPhoneOS</key>
        	<true/>
        	<key>NSUserActivityTypes</key>
        	<array>
        		<string>OrderSoupIntent</string>
        		<string>INStartAudioCallIntent</string>
        		<string>com.example.soupchef.order</string>
        		<string>$(PRODUCT_BUNDLE_IDENTIFIER).menu</string>
        		<string>com.example.soupchef.viewMenu</string>
        	</array>
        	<key>UIApplicationSceneManifest</key>
        	<dict>
        		<key>UIApplicationSupportsMultipleScenes</key>
        		<false/>
        		<key>UISceneConfigurations</key>
        		<dict>
        			<key>UIWindowSceneSessionRoleApplication</key>
        			<array>
        				<dict>
        					<key>UISceneConfigurationName</key>
        					<string>Default Configuration</string>
        					<key>UISceneDelegateClassName</key>
        					<string>$(PRODUCT_MODULE_NAME).SceneDelegate</string>
        				</dict>
        			</array>
        		</dict>
        	</dict>
        	<key>UIRequiredDeviceCapabilities</key>
        	<array>
        		<string>armv7</string>
        	</array>
        	<key>UIFileSharingEnabled</key>
        	<false/>
        	<key>CFBundleVersion</key>
        	<string>$(CURRENT_PROJECT_VERSION)</string>
        </dict>
        </plist>
        """

    func checkAppInfoPlist(_ registry: ActivityTypeRegistry, path: String) {
        #expect(registry.declaredTypes == ["com.example.soupchef.order", "com.example.soupchef.viewMenu"])
        #expect(!registry.isDeclared("OrderSoupIntent"))
        #expect(registry.skipped == [
            .init(entry: "OrderSoupIntent", reason: .intentClassName, path: path),
            .init(entry: "INStartAudioCallIntent", reason: .intentClassName, path: path),
            .init(entry: "$(PRODUCT_BUNDLE_IDENTIFIER).menu", reason: .buildVariable, path: path),
        ])
        guard registry.skipped.count == 3 else { return }
        let warning = registry.skipped[0].description
        #expect(warning.hasPrefix("warning: ") && warning.contains(path) && warning.contains("'OrderSoupIntent'"))
        #expect(warning.contains("NSUserActivityTypes") && warning.contains("skipped"))
        #expect(registry.skipped[2].description.contains("Xcode build variable"))
        #expect(throws: Never.self) {
            try registry.validate(type: "com.example.soupchef.order", userInfo: ["anything": [1]])
        }
    }

    @Test("An app's Info.plist loads: intent names and build variables are skipped with warnings, other keys ignored")
    func appInfoPlistXML() throws {
        checkAppInfoPlist(try load(Self.appInfoPlist), path: "test.plist")
    }

    @Test("The same Info.plist in binary form, from Foundation's writer and from Baton's")
    func appInfoPlistBinary() throws {
        let object = try PropertyListSerialization.propertyList(from: Data(Self.appInfoPlist.utf8), format: nil)
        let foundation = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        #expect(foundation.starts(with: Array("bplist".utf8)))
        checkAppInfoPlist(try ActivityTypeRegistry(data: foundation, path: "app.plist"), path: "app.plist")
        let value = try PropertyListValue(foundationObject: object)
        let baton = Data(BinaryPropertyListWriter().write(value))
        checkAppInfoPlist(try ActivityTypeRegistry(data: baton, path: "app.plist"), path: "app.plist")
    }

    @MainActor
    @Test("With an app's Info.plist (binary) as the registry on both sides, its reverse-DNS types are announced and continued")
    func appInfoPlistHandsOff() async throws {
        let object = try PropertyListSerialization.propertyList(from: Data(Self.appInfoPlist.utf8), format: nil)
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let registry = try ActivityTypeRegistry(data: binary, path: "app.plist")
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "alice@a", registry: registry)
        let b = makeCenter(on: network, name: "bob@b", registry: registry)
        let activity = UserActivity(activityType: "com.example.soupchef.order", center: a)
        activity.title = "Tomato soup"
        activity.userInfo = ["soup": "tomato", "quantity": 2, "extras": ["croutons"], "toGo": true]
        try activity.becomeCurrent()
        let continued = try await b.continueActivity(type: "com.example.soupchef.order", timeout: .seconds(60))
        #expect(continued.userInfo["soup"] == "tomato")
        #expect(continued.userInfo["quantity"] == 2)
        #expect(continued.userInfo["toGo"] == true)
        #expect(continued.title == "Tomato soup")
        // A skipped entry is not a type: it cannot be continued.
        await #expect(throws: HandoffError.self) {
            try await b.continueActivity(type: "OrderSoupIntent", timeout: .milliseconds(50))
        }
        await a.shutdown()
        await b.shutdown()
    }

    @Test("Entries that are not reverse-DNS are told apart in the warning")
    func skippedReasons() throws {
        let registry = try load(plist("""
            <key>NSUserActivityTypes</key>
            <array><string>counter</string><string>dev..x</string><string>${BUNDLE}.x</string><string>a.b</string></array>
            """))
        #expect(registry.declaredTypes == ["a.b"])
        #expect(registry.skipped.map(\.reason) == [.intentClassName, .notReverseDNS, .buildVariable])
        // A file that lists nothing Baton can use still loads; what it skipped says why.
        let none = try load(plist("<key>NSUserActivityTypes</key><array><string>OrderSoupIntent</string></array>"))
        #expect(none.declaredTypes.isEmpty && none.skipped.count == 1)
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
