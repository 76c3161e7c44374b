import BatonShell
import Synchronization
import Testing
@testable import ShellHost

/// A terminal's input on its way to the viewer: typed ahead of the first viewer, between two,
/// and q while the link is opened again.
@Suite("A shell terminal's input router")
struct ShellInputRouterTests {
    final class Received: Sendable {
        let events = Mutex<[ShellViewerEvent]>([])
        func take(_ event: ShellViewerEvent) { events.withLock { $0.append(event) } }
        var all: [ShellViewerEvent] { events.withLock { $0 } }
    }

    static func key(_ text: String) -> ShellViewerEvent { .input(.text(text, modifiers: [])) }

    @Test("What is typed before the first viewer reaches it first, in order; then input goes straight to it")
    func typedAhead() {
        let router = ShellInputRouter()
        let received = Received()
        router.handle(Self.key("e"))
        router.handle(.resize(rows: 30, columns: 90))
        router.handle(Self.key("q"))  // typed ahead: a letter of a command, not a way out
        router.attach { received.take($0) }
        router.handle(Self.key("x"))
        #expect(received.all == [Self.key("e"), .resize(rows: 30, columns: 90), Self.key("q"), Self.key("x")])
    }

    @Test("Between two viewers, keys other than q are dropped and q leaves; the next viewer gets what follows")
    func betweenViewers() async {
        let router = ShellInputRouter()
        let first = Received()
        router.attach { first.take($0) }
        router.detach()
        router.handle(Self.key("a"))
        let second = Received()
        router.attach { second.take($0) }
        router.handle(Self.key("b"))
        #expect(first.all.isEmpty && second.all == [Self.key("b")])
        router.detach()
        router.handle(Self.key("q"))
        #expect(await router.waitOrLeave(seconds: 60), "q between viewers leaves at once")
    }

    @Test("Nothing typed between viewers: the wait ends after its seconds, not left")
    func waitEnds() async {
        let router = ShellInputRouter()
        router.attach { _ in }
        router.detach()
        #expect(await router.waitOrLeave(seconds: 1) == false)
    }
}
