import HandoffCLI
import Testing

@Suite("--version")
struct VersionTextTests {
    @Test("--version: the bare version first, then the protocols and how the Swift runtime is linked")
    func version() {
        let text = VersionText.text(version: "1.0.0", protocols: VersionText.protocols(pairing: true), runtime: .dynamic)
        #expect(text == "1.0.0\nprotocols: datagram 3, state stream 3, pairing 2\nbuild: dynamic Swift runtime")
        #expect(VersionText.protocols(pairing: false).map(\.name) == ["datagram", "state stream"])
        #expect(VersionText.text(version: "1.0.0", protocols: [], runtime: .static).hasSuffix("build: static Swift runtime"))
        let dynamicMaps = """
            55d0c0a00000-55d0c0a10000 r--p 00000000 08:01 123 /usr/local/bin/baton
            7f1c2a000000-7f1c2a400000 r-xp 00000000 08:01 456 /usr/lib/swift/linux/libswiftCore.so
            """
        #expect(VersionText.SwiftRuntime.detect(maps: dynamicMaps) == .dynamic)
        #expect(VersionText.SwiftRuntime.detect(maps: "55d0c0a00000-55d0c0a10000 r--p 0 08:01 1 /usr/local/bin/baton\n") == .static)
        // The test runner links the runtime dynamically.
        #expect(VersionText.SwiftRuntime.current() == .dynamic)
    }
}
