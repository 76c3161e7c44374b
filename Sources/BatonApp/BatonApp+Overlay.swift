import FoundationEssentials
import TerminalUI

extension BatonApp {
    /// Gives a key to the open overlay.
    static func handleOverlayKey(_ key: Key, _ overlay: Overlay, _ model: inout AppModel) -> [AppCommand] {
        switch overlay {
        case .nearby(let selectedID):
            return handleNearbyKey(key, selectedID: selectedID, &model)
        case .confirm(let confirmation):
            return handleConfirmKey(key, confirmation, &model)
        case .prompt(var prompt):
            return handlePromptKey(key, &prompt, &model)
        case .continuing(let state):
            return handleContinuingKey(key, state, &model)
        case .help(let first):
            model.overlay = HelpPanel.scrolled(from: first, by: key, kind: model.session.kind, layout: model.layout).map { .help(first: $0) }
            return []
        case .replacing(let replace):
            return handleReplacingKey(key, replace, &model)
        }
    }

    /// The answer a key gives to a question: y, n, c (Esc and Ctrl-C cancel), or none.
    enum Answer { case yes, no, cancel }

    static func answer(for key: Key) -> Answer? {
        switch key {
        case .character("y"), .character("Y"): .yes
        case .character("n"), .character("N"): .no
        case .character("c"), .character("C"), .escape, .control("c"): .cancel
        default: nil
        }
    }

    /// y/n(/c) for a confirmation; other keys are ignored so a stray key never decides.
    static func handleConfirmKey(_ key: Key, _ confirmation: Confirmation, _ model: inout AppModel) -> [AppCommand] {
        guard let answer = answer(for: key) else { return [] }
        switch confirmation {
        case .quitWithUnsavedChanges:
            switch answer {
            case .yes:
                guard case .editor(let state) = model.session else { return quit(&model) }
                model.overlay = nil
                return startSave(state, thenQuit: true, &model)
            case .no:
                return quit(&model)
            case .cancel:
                model.overlay = nil
            }
        case .replaceFile(let path), .replaceReadOnlyFile(let path), .fileChangedOnDisk(let path):
            switch answer {
            case .yes:
                guard case .editor(let state) = model.session else {
                    model.overlay = nil
                    return []
                }
                model.overlay = nil
                let thenQuit = model.pendingSave?.thenQuit ?? false
                model.pendingSave = PendingSave(path: path, text: state.buffer.text, thenQuit: thenQuit)
                return [.saveFile(path: path, text: state.lineEnding.encode(state.buffer.text), replaceExisting: true)]
            case .no, .cancel:
                model.overlay = nil
                model.pendingSave = nil
                model.show("Not saved; Ctrl-O saves under another name")
            }
        case .discardChangesToContinue(let id):
            switch answer {
            case .yes:
                return continueActivity(id: id, &model)
            case .no, .cancel:
                model.overlay = .nearby(selectedID: id)
            }
        }
        return []
    }

    /// Editing keys for a one-line prompt; Enter answers, Esc (or Ctrl-C) cancels.
    static func handlePromptKey(_ key: Key, _ prompt: inout TextPrompt, _ model: inout AppModel) -> [AppCommand] {
        switch key {
        case .escape, .control("c"):
            model.overlay = nil
            return []
        case .enter:
            return answerPrompt(prompt, &model)
        case .control("f"), .control("w"), .function(3):
            // In the search prompt with nothing typed: look for the last search again.
            guard prompt.purpose == .search, prompt.field.isEmpty else { return [] }
            return answerPrompt(prompt, &model)
        case .alt("c"), .alt("C"), .alt("r"), .alt("R"):
            // In the search and replace prompts: case sensitivity and regular expressions, on or off.
            guard prompt.purpose == .search || prompt.purpose == .replace,
                  case .editor(var state) = model.session, case .alt(let letter) = key else { return [] }
            if letter == "c" || letter == "C" {
                state.searchOptions.caseSensitive.toggle()
            } else {
                state.searchOptions.regularExpression.toggle()
            }
            prompt.relabel(last: state.lastSearch, options: state.searchOptions)
            model.session = .editor(state)
        case .character(let character):
            guard !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return []
            }
            prompt.field.insert(character)
            prompt.problem = nil
        case .backspace:
            prompt.field.backspace()
            prompt.problem = nil
        case .delete:
            prompt.field.deleteForward()
            prompt.problem = nil
        case .left:
            prompt.field.moveLeft()
        case .right:
            prompt.field.moveRight()
        case .home, .control("a"):
            prompt.field.moveToLineStart()
        case .end, .control("e"):
            prompt.field.moveToLineEnd()
        default:
            return []
        }
        model.overlay = .prompt(prompt)
        return []
    }

    /// Acts on a prompt's answer, or shows why it cannot be used.
    static func answerPrompt(_ prompt: TextPrompt, _ model: inout AppModel) -> [AppCommand] {
        switch prompt.purpose {
        case .saveAs(let thenQuit):
            let name = prompt.field.text.trimmed(newlines: false)
            if let problem = FileNames.validatePath(name) {
                var refused = prompt
                refused.problem = problem.description
                model.overlay = .prompt(refused)
                return []
            }
            guard case .editor(let state) = model.session else {
                model.overlay = nil
                return []
            }
            model.overlay = nil
            return save(state, to: name, thenQuit: thenQuit, &model)
        case .search:
            model.overlay = nil
            guard case .editor(var state) = model.session else { return [] }
            let typed = prompt.field.text
            guard let query = typed.isEmpty ? state.lastSearch : typed else { return [] }
            find(query, &state)
            model.session = .editor(state)
            return []
        case .replace:
            model.overlay = nil
            guard case .editor(let state) = model.session else { return [] }
            let typed = prompt.field.text
            guard let query = typed.isEmpty ? state.lastSearch : typed, !query.isEmpty else { return [] }
            model.overlay = .prompt(.replaceWith(query: query, last: state.lastReplacement))
            return []
        case .replaceWith(let query):
            guard case .editor(var state) = model.session else {
                model.overlay = nil
                return []
            }
            startReplace(query, with: prompt.field.text, &state, &model)
            model.session = .editor(state)
            return []
        case .goToLine:
            guard case .editor(var state) = model.session else {
                model.overlay = nil
                return []
            }
            if let problem = goToLine(prompt.field.text, &state) {
                var refused = prompt
                refused.problem = problem
                model.overlay = .prompt(refused)
                return []
            }
            model.overlay = nil
            model.session = .editor(state)
            return []
        }
    }
}
