/// A one-line question answered by typing, such as "Save as: ".
public struct TextPrompt: Equatable, Sendable {
    /// What the answer is for.
    public enum Purpose: Equatable, Sendable {
        /// A file name to save the editor to; quit after a successful save when `thenQuit`.
        case saveAs(thenQuit: Bool)
        /// Text to find in the editor (Ctrl-F, Ctrl-W).
        case search
        /// Text to replace (Ctrl-\\, Alt-R); the replacement is asked next.
        case replace
        /// What replaces `query`.
        case replaceWith(query: String)
        /// A line number to go to (Ctrl-G).
        case goToLine
    }

    /// What the answer is for.
    public var purpose: Purpose
    /// The words before the answer, e.g. "Save as: ".
    public var label: String
    /// The answer typed so far, with its cursor (one line).
    public var field: TextBuffer
    /// Why the last answer was refused, shown after it until the next edit.
    public var problem: String?

    /// A prompt for `purpose`, its field holding `text` with the cursor at the end.
    public init(purpose: Purpose, label: String, text: String = "", problem: String? = nil) {
        self.purpose = purpose
        self.label = label
        self.field = TextBuffer(text: text, cursor: TextPosition(line: .max, column: .max))
        self.problem = problem
    }

    /// The "Save as: " prompt, prefilled with `suggestion`.
    public static func saveAs(suggestion: String? = nil, thenQuit: Bool = false) -> TextPrompt {
        TextPrompt(purpose: .saveAs(thenQuit: thenQuit), label: "Save as: ", text: suggestion ?? "")
    }

    /// The "Search: " prompt; an empty answer looks for `last` again, so the label shows it,
    /// and the options that are on ("Search [Case Sensitive]: ").
    public static func search(last: String? = nil, options: SearchOptions = SearchOptions()) -> TextPrompt {
        TextPrompt(purpose: .search, label: searchLabel("Search", last: last, options: options))
    }

    /// The "Replace: " prompt, as the search prompt.
    public static func replace(last: String? = nil, options: SearchOptions = SearchOptions()) -> TextPrompt {
        TextPrompt(purpose: .replace, label: searchLabel("Replace", last: last, options: options))
    }

    /// The "Replace with: " prompt, prefilled with the last replacement.
    public static func replaceWith(query: String, last: String? = nil) -> TextPrompt {
        TextPrompt(purpose: .replaceWith(query: query), label: "Replace with: ", text: last ?? "")
    }

    static func searchLabel(_ verb: String, last: String?, options: SearchOptions) -> String {
        verb + options.labelText + (last.map { " [\($0)]" } ?? "") + ": "
    }

    /// The label again, after Alt-C or Alt-R changed `options` in the open prompt.
    mutating func relabel(last: String?, options: SearchOptions) {
        switch purpose {
        case .search: label = Self.searchLabel("Search", last: last, options: options)
        case .replace: label = Self.searchLabel("Replace", last: last, options: options)
        default: break
        }
    }

    /// The "Go to line: " prompt.
    public static func goToLine() -> TextPrompt {
        TextPrompt(purpose: .goToLine, label: "Go to line: ")
    }
}
