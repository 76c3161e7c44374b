import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing
@testable import BatonApp
import HandoffWire

/// Peer text on the app's screen: controls inert (the screen sees to that), and invisible and
/// bidi characters shown as `<U+XXXX>` in the nearby list, the hint line, the notices and the
/// continue panel.
@Suite("Peer text on the screen")
struct PeerTextScreenTests {
    static func hostileItem(_ text: String) -> NearbyItem {
        NearbyItem(
            id: "x", activityType: "dev.baton.counter", title: "T" + text, peerName: "p" + text,
            savedAt: Fixtures.start, lastHeard: Fixtures.start)
    }

    /// Scalars on the screen that neither the screen nor `PeerText.visible` would let through.
    static func hazards(on model: AppModel) -> [String] {
        BatonApp.view(model).frame.cells.flatMap { cell in
            HostileText.forbidden(in: cell.grapheme)
        }
    }

    @Test("The nearby list and the hint line show invisible and bidi characters, and nothing acts on the terminal")
    func nearbyList() {
        var model = Fixtures.counter(1, width: 64, height: 12)
        model.send(.nearbyChanged([Self.hostileItem("\u{202E}ev\u{200B}il\u{2066}")]))
        #expect(model.screen.contains { $0.hasPrefix("↪ T<U+202E>ev<U+200B>il<U+2066> — p<U+202E>ev") })
        #expect(Self.hazards(on: model) == [])
        model.press(.character("n"))
        #expect(model.screen.contains { $0.contains("│▸ T<U+202E>ev<U+200B>il<… p<U+202E>ev<U+200B>il<U… · just now │") })
        #expect(Self.hazards(on: model) == [])
    }

    @Test("Every hostile kind in the list leaves no hazard on the screen", arguments: HostileText.kinds.map(\.name))
    func everyKind(kind: String) {
        let text = HostileText.kinds.first { $0.name == kind }!.text
        var model = Fixtures.counter(1, width: 64, height: 12)
        model.send(.nearbyChanged([Self.hostileItem(text)]))
        #expect(model.nearby.first?.title == PeerText.visible("T" + text))
        #expect(model.nearby.first?.peerName == PeerText.visible("p" + text))
        #expect(Self.hazards(on: model) == [])
        model.press(.character("n"))
        #expect(Self.hazards(on: model) == [])
        model.press(.enter)
        #expect(model.notice?.text == "Continuing " + PeerText.visible("T" + text) + " from " + PeerText.visible("p" + text) + "…")
        #expect(Self.hazards(on: model) == [])
    }

    @Test("Notices name the peer visibly: continued here, continued there")
    func notices() {
        var model = Fixtures.counter()
        model.send(.continuedElsewhere(peerName: "al\u{200B}ice\u{3164}"))
        #expect(model.notice?.text == "Continued on al<U+200B>ice<U+3164>")
        model.send(.continued(.counter(CounterState(count: 2)), from: "b\u{2060}ob\u{1B}]0;x\u{7}"))
        #expect(model.notice?.text == "Continued from b<U+2060>ob␛]0;x␇")
        let session = Session(
            activityType: "dev.baton.editing", userInfo: ["text": "t", "cursorLine": 0, "cursorColumn": 0],
            from: "\u{FEFF}eve")
        #expect(session?.editorState?.continuedFrom == "<U+FEFF>eve")
    }

    @Test("The continue panel and the progress line show the title and peer visibly")
    func continuePanel() {
        #expect(TransferText.source("a\u{200B}b\u{202E}") == "from a<U+200B>b<U+202E>")
        let state = ContinueState(id: "x", title: "E\u{00AD}diting", peerName: "p\u{E0041}")
        let lines = ContinuePanel.lines(state, width: 40, room: 10).map(\.text)
        #expect(lines.contains("E<U+00AD>diting"))
        #expect(lines.contains("from p<U+E0041>"))
    }

    @Test("What the screen makes inert is exactly PeerText's controls and bidi controls, across the BMP and the tags")
    func screenAgrees() {
        var disagreements: [String] = []
        for value in Array(UInt32(0)...0xFFFF) + Array(0xE0000...0xE0FFF) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let hazard = PeerText.hazard(of: scalar)
            let peerInert = hazard == .control || hazard == .bidiControl
            if TerminalSanitizer.isUnsafe(scalar) != peerInert { disagreements.append(String(value, radix: 16)) }
        }
        #expect(disagreements == [])
    }
}
