import BatonApp
import FoundationEssentials
import Handoff
import HandoffWire
import TerminalUI

extension Program {
    // MARK: Commands

    func perform(_ command: AppCommand) {
        switch command {
        case .publish:
            guard model.handoffOff == nil else { return }
            if activity?.activityType != model.session.activityType { startActivity() }
            activity?.needsSave = true
        case .startActivity:
            startActivity()
        case .continueActivity(let id):
            // The list on screen may be a news frame behind: continue the newest revision.
            center.takeInHeard()
            guard let entry = center.nearby.first(where: { $0.id == id }) else {
                inbox.yield(.continueFailed("That activity is no longer nearby."))
                return
            }
            if let advice = Self.shellAdvice(entry) { return inbox.yield(.continueFailed(advice)) }
            startContinue(entry)
        case .joinShell(let id, let follow):
            center.takeInHeard()
            chosenShell = center.nearby.first { $0.id == id }.map { ($0, follow) }
            // This program's session ends here: it is withdrawn now, not when the shell ends.
            activity?.invalidate()
            activity = nil
        case .cancelContinue:
            cancelContinue()
        case .mouseReporting(let on):
            backend.setMouseReporting(on)
        case .keepDisplay(let display):
            do {
                try displayPreference?.keep(display)
            } catch {
                logger.warning("the display toggles are not kept for the next session: \(error)")
            }
        case .keepClipboard(let clip):
            do {
                try clipboard?.keep(clip)
            } catch {
                logger.warning("the clipboard stays on this machine: \(error)")
            }
        case .saveFile(let path, let text, let replace, let expecting):
            do {
                switch try files.save(path: path, text: text, replaceExisting: replace, expecting: expecting) {
                case .saved:
                    inbox.yield(.fileSaved(path: path, stamp: files.stamp(path: path), isReadOnly: files.isReadOnly(path: path)))
                case .needsConfirmation: inbox.yield(.saveNeedsConfirmation(path: path))
                case .readOnly: inbox.yield(.saveReadOnly(path: path))
                case .changedOnDisk: inbox.yield(.saveNeedsConfirmation(path: path, changedOnDisk: true))
                }
            } catch {
                inbox.yield(.fileSaveFailed(error.description))
            }
        case .openLive, .liveSend, .liveClose:
            performLive(command)
        case .stopPublishing:
            // This program follows another's session now: its activity is withdrawn.
            activity?.invalidate()
            activity = nil
        case .quit:
            // The model is quitting (update saw to that) and the loop ends after this message;
            // what is left is to say in the log what stays unsaved.
            if case .editor(let editor) = model.session, editor.isDirty {
                logger.warning("quit with unsaved changes in \(editor.fileName ?? "an unnamed buffer")")
            }
            // Quitting discards the changes: their recovery copy goes with them.
            upkeep.quitting()
            if let recovery, !keepRecoveryOnQuit, case .editor(let editor) = model.session {
                removeRecovery()
                if editor.isDirty { recovery.remove(path: editor.filePath.map(RecoveryStore.absolute)) }
            }
        }
    }

    // MARK: The current activity

    /// Makes a new activity for the session's type current (the previous one is withdrawn).
    func startActivity() {
        activity?.invalidate()
        joinGeneration += 1
        upkeep.activityStarted()
        // The text as opened (or continued) is at hand: until the first join, a save publishes
        // that rather than joining the newest text on the main actor (the newest follows).
        if case .editor(let editor) = model.session, editor.buffer.isTextKept {
            joinedEditor = editor
        } else {
            joinedEditor = nil
        }
        let new = UserActivity(activityType: model.session.activityType, center: center)
        new.responder = self
        new.delegate = self
        // Another machine may follow this session live, and its source take it back.
        new.supportsContinuationStreams = center.stateStream != nil
        activity = new
        do {
            try new.becomeCurrent()
        } catch {
            logger.error("cannot publish: \(error)")
            inbox.yield(.publishFailed(error.description))
        }
    }
}
