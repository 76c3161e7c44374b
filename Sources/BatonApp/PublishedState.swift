import Handoff

/// What peers see of a session; `BatonApp.update` publishes when it changes. Compared on
/// every message, so the editor's text stands in by its version: joining and comparing
/// megabytes of text per key press would make a large file crawl.
struct PublishedState: Equatable {
    enum Content: Equatable {
        case counter(Int)
        case editor(textVersion: UInt64, cursor: TextPosition, fileName: String?, extras: EditorExtras)
    }

    /// What else of an editor travels (issue 38): a change to any of it is published too.
    struct EditorExtras: Equatable {
        let mark: TextPosition?
        let search: String?
        let options: SearchOptions
        let display: EditorDisplay

        init(_ state: EditorState) {
            mark = state.selection == nil ? nil : state.mark
            search = state.lastSearch
            options = state.searchOptions
            display = state.display
        }
    }

    let activityType: String
    let title: String
    let content: Content

    init(_ session: Session) {
        activityType = session.activityType
        title = session.title
        switch session {
        case .counter(let state):
            content = .counter(state.count)
        case .editor(let state):
            content = .editor(
                textVersion: state.buffer.version, cursor: state.buffer.cursor, fileName: state.fileName,
                extras: EditorExtras(state))
        }
    }
}
