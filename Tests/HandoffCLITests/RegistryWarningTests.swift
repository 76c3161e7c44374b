import Foundation
import Handoff
import HandoffCLI
import Testing

/// `--registry` with another app's Info.plist.
@Suite("Registry warnings")
struct RegistryWarningTests {
    @Test("--registry with an app's Info.plist loads and warns once for each skipped entry")
    func registryWarnings() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("baton-registry-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
            <key>NSUserActivityTypes</key>
            <array><string>OrderSoupIntent</string><string>com.example.soup.order</string></array>
            </dict></plist>
            """.write(to: file, atomically: true, encoding: .utf8)
        let options = try NetworkOptions.parse(["--registry", file.path])
        var warnings: [String] = []
        let registry = try options.loadRegistry { warnings.append($0) }
        #expect(registry.declaredTypes == ["com.example.soup.order"])
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("warning: the activity registry \(file.path) lists 'OrderSoupIntent'") == true)
        var bundled: [String] = []
        _ = try NetworkOptions.parse([]).loadRegistry { bundled.append($0) }
        #expect(bundled.isEmpty)
    }
}
