/// A one-line question answered by typing, such as "Save as: ".
public struct TextPrompt: Equatable, Sendable {
    /// What the answer is for.
    public enum Purpose: Equatable, Sendable {
        /// A file name to save the editor to; quit after a successful save when `thenQuit`.
        case saveAs(thenQuit: Bool)
        /// Text to find in the editor (Ctrl-F, Ctrl-W).
        case search
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

    /// The "Search: " prompt; an empty answer looks for `last` again, so the label shows it.
    public static func search(last: String? = nil) -> TextPrompt {
        TextPrompt(purpose: .search, label: last.map { "Search [\($0)]: " } ?? "Search: ")
    }

    /// The "Go to line: " prompt.
    public static func goToLine() -> TextPrompt {
        TextPrompt(purpose: .goToLine, label: "Go to line: ")
    }
}
