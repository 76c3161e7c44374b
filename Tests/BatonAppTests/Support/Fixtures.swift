import Foundation
import Testing
import TerminalUI
@testable import BatonApp

/// Models, items and key helpers shared by the tests.
enum Fixtures {
    /// A fixed "now" so ages and notices are exact.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static let status = StatusInfo(
        peerName: "alice@laptop", endpoint: "239.255.77.88:47788 on eth0", network: .online, peersHeard: 2)

    static func model(_ session: Session, width: Int = 40, height: Int = 10) -> AppModel {
        AppModel(session: session, size: TerminalSize(width: width, height: height), status: status, now: start)
    }

    static func counter(_ count: Int = 0, width: Int = 40, height: Int = 10) -> AppModel {
        model(.counter(CounterState(count: count)), width: width, height: height)
    }

    static func editor(
        _ text: String = "", cursor: TextPosition = TextPosition(line: 0, column: 0),
        filePath: String? = nil, fileName: String? = nil, isDirty: Bool = false, continuedFrom: String? = nil,
        width: Int = 40, height: Int = 10
    ) -> AppModel {
        let state = EditorState(
            buffer: TextBuffer(text: text, cursor: cursor), filePath: filePath, fileName: fileName,
            isDirty: isDirty, continuedFrom: continuedFrom)
        return model(.editor(state), width: width, height: height)
    }

    static func item(_ id: String, _ title: String, peer: String = "bob@desk", secondsAgo: Double) -> NearbyItem {
        NearbyItem(
            id: id, activityType: title.hasPrefix("Counter") ? "dev.baton.counter" : "dev.baton.editing",
            title: title, peerName: peer, savedAt: start.addingTimeInterval(-secondsAgo), lastHeard: start)
    }
}

extension AppModel {
    /// Sends messages in order and returns every command they produced.
    @discardableResult
    mutating func send(_ messages: AppMessage...) -> [AppCommand] {
        messages.flatMap { BatonApp.update(&self, $0) }
    }

    /// Presses keys in order and returns every command they produced.
    @discardableResult
    mutating func press(_ keys: Key...) -> [AppCommand] {
        keys.flatMap { BatonApp.update(&self, .key($0)) }
    }

    /// Types `text` one character key at a time.
    @discardableResult
    mutating func type(_ text: String) -> [AppCommand] {
        text.flatMap { BatonApp.update(&self, .key(.character($0))) }
    }

    /// The editor's state; records an issue and gives an empty one for a counter.
    var editorState: EditorState {
        guard case .editor(let state) = session else {
            Issue.record("the session is not an editor: \(session)")
            return EditorState()
        }
        return state
    }

    /// The counter's count; records an issue and gives Int.min for an editor.
    var count: Int {
        guard case .counter(let state) = session else {
            Issue.record("the session is not a counter: \(session)")
            return .min
        }
        return state.count
    }

    /// The open text prompt, if any.
    var openPrompt: TextPrompt? {
        if case .prompt(let prompt) = overlay { prompt } else { nil }
    }

    /// The screen as lines.
    var screen: [String] { BatonApp.view(self).frame.lines() }

    /// Where the view puts the cursor.
    var screenCursor: CursorPosition? { BatonApp.view(self).cursor }
}

/// Compares whole screens, recording a readable mismatch.
func expectScreen(_ model: AppModel, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    if let mismatch = ScreenMismatch.compare(actual: model.screen, expected: expected) {
        Issue.record("\(mismatch)", sourceLocation: sourceLocation)
    }
}
