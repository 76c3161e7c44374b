import TerminalUI

extension BatonApp {
    /// A bracketed paste: the editor inserts it whole, with one `TextBuffer.insert`, so it is one
    /// edit (one undo step); nothing in it is a key binding, so a `q`, a control character or a
    /// line break is text. Carriage returns (CR LF or CR alone, as terminals send line ends)
    /// become line breaks. A prompt takes the first line of it, without control characters;
    /// questions, the nearby list and the continue panel ignore pastes, so a paste never answers.
    static func handlePaste(_ text: String, _ model: inout AppModel) -> [AppCommand] {
        guard !text.isEmpty else { return [] }
        switch model.overlay {
        case .prompt(var prompt):
            let firstLine = pastedLines(text).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
            for character in firstLine
            where !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                prompt.field.insert(character)
            }
            prompt.problem = nil
            model.overlay = .prompt(prompt)
            return []
        case .some:
            return []
        case nil:
            break
        }
        guard var state = model.takeEditorState() else { return [] }
        // One step in the history, as Ctrl-U: one Ctrl-Z removes the whole paste.
        paste(pastedLines(text), &state, now: model.now)
        model.session = .editor(state)
        return []
    }

    /// `text` with its line ends as the editor keeps them: CR LF and CR alone become LF.
    static func pastedLines(_ text: String) -> String {
        guard text.unicodeScalars.contains("\r") else { return text }
        var result = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" {
                result.append("\n")
                previousWasCR = true
                continue
            }
            if scalar == "\n", previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = false
            result.append(scalar)
        }
        return String(result)
    }
}
