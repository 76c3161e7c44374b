import BatonApp
import FoundationEssentials
import Handoff

/// Carrying out `EditorUpkeep`'s decisions: the publish, the join of a large buffer's text off
/// the main actor, and the recovery copies. The policy is the machine's; here are its effects
/// and its one timer.
extension Program {
    /// What the machine is told of the editor now; nil for a counter, and while following: the
    /// text shown is another machine's, which neither publishes here nor needs a recovery copy
    /// (writing copies of a followed 16 MB text took a quarter of a follower's CPU per key).
    var upkeepBuffer: EditorUpkeep.Buffer? {
        guard case .editor(let editor) = model.session, model.live?.following == nil else { return nil }
        return EditorUpkeep.Buffer(
            bytes: editor.buffer.utf8Count, isTextKept: editor.buffer.isTextKept,
            isDirty: editor.isDirty, version: editor.buffer.version)
    }

    /// Does what the machine decided, in order, then sets its timer.
    func performUpkeep(_ actions: [EditorUpkeep.Action]) {
        for action in actions {
            switch action {
            case .publish: perform(.publish)
            case .join: startJoin()
            case .writeCopy: startCopyWrite()
            case .removeCopy: removeRecovery()
            }
        }
        rescheduleUpkeep()
    }

    /// Keeps one timer, on the Program's clock, for the machine's next deadline. (The typing
    /// pause moves with every key: a timer that fires no later stays, and on firing finds what is
    /// due and sets the next; starting one per key cost a 16 MB editor about 0.06 ms of each key,
    /// measured in issue 33's benchmarks.)
    func rescheduleUpkeep() {
        upkeepTimer.schedule(model.isQuitting ? nil : upkeep.nextDeadline)
    }

    /// The upkeep timer fired: what is due now.
    func upkeepDue() {
        performUpkeep(upkeep.tick(upkeepBuffer, at: clock.now))
    }

    // MARK: The text of a large buffer, joined for the saves

    /// Makes the editor's text one string (what the save's userInfo holds) on a detached task,
    /// from a snapshot of the editor: 16 MB of it is a copy and 4,000 fresh pages, which a key
    /// would otherwise wait for at every save.
    func startJoin() {
        guard case .editor(let editor) = model.session else {
            performUpkeep(upkeep.joined(version: 0, upkeepBuffer, at: clock.now))
            return
        }
        let generation = joinGeneration
        let buffer = editor.buffer
        Task { [weak self] in
            // The snapshot kept for the saves gets arrays of its own here too: sharing the
            // editor's, it made the first key after every join copy them on the main actor.
            // Both are cut from the join, so the text the blocks were slices of (the file's, or
            // the join before) is let go: one copy of the text, not two.
            let (joined, recut) = await BackgroundWork.run { () -> (EditorState, TextBuffer?) in
                _ = buffer.text
                var snapshot = editor.unshared()
                guard let cut = snapshot.buffer.recutFromText() else { return (snapshot, nil) }
                snapshot.buffer = cut
                return (snapshot, cut.unshared())
            }
            // A new activity took over meanwhile: this join was for the one before.
            guard let self, self.joinGeneration == generation, !self.model.isQuitting else { return }
            self.joinedEditor = joined
            if let recut { self.inbox.yield(.textRecut(recut)) }
            self.performUpkeep(self.upkeep.joined(version: buffer.version, self.upkeepBuffer, at: self.clock.now))
        }
    }

    /// The editor's buffer as it is before `.textRecut` replaces its blocks: they may be the
    /// last to hold the file's text, which is let go off the main actor (`letGoInBackground`).
    func blocksReplaced(by message: AppMessage) -> TextBuffer? {
        guard case .textRecut = message else { return nil }
        return model.session.editorState?.buffer
    }

    // MARK: Recovery copies

    /// Writes the copy the machine asked for: joined, encoded and written on a detached task,
    /// so keys are not kept waiting behind 16 MB made into one string and its fsync.
    func startCopyWrite() {
        guard let recovery, let (request, generation) = recoveryRequest() else {
            performUpkeep(upkeep.copyWritten(upkeepBuffer, at: clock.now))
            return
        }
        let writer = recoveryWriter
        Task { [weak self] in
            let result = await BackgroundWork.run {
                Result { try writer.write(request.copy(), to: recovery, generation: generation) }
            }
            guard let self else { return }
            self.reportRecoveryWrite(result)
            // After a quit nothing more is written: the quit decided what becomes of the copy.
            guard !self.model.isQuitting else { return }
            self.performUpkeep(self.upkeep.copyWritten(self.upkeepBuffer, at: self.clock.now))
        }
    }

    /// Writes the recovery copy now, on the main actor, when the editor has unsaved changes
    /// (on SIGHUP and SIGTERM, and when input closes): it is done when this returns.
    public func writeRecoveryNow() {
        guard let recovery, let (request, generation) = recoveryRequest() else { return }
        reportRecoveryWrite(Result { try recoveryWriter.write(request.copy(), to: recovery, generation: generation) })
        upkeep.copyWrittenNow(version: request.buffer.version)
    }

    /// What a recovery copy is made of: the buffer itself (a snapshot that shares its text),
    /// whose text is joined where the copy is written, off the main actor when that is.
    struct RecoveryRequest: Sendable {
        var path: String?
        var name: String?
        var savedAt: Date
        var buffer: TextBuffer

        func copy() -> RecoveryStore.Copy {
            RecoveryStore.Copy(path: path, name: name, savedAt: savedAt, text: buffer.textWithoutKeeping)
        }
    }

    /// The copy to write now and its place among the writer's requests; nil when the editor
    /// has no unsaved changes.
    func recoveryRequest() -> (RecoveryRequest, UInt64)? {
        guard let recovery, case .editor(let editor) = model.session, editor.isDirty else { return nil }
        let path = editor.filePath.map(RecoveryStore.absolute)
        let copy = RecoveryRequest(path: path, name: editor.fileName, savedAt: clock.date, buffer: editor.buffer)
        let location = recovery.location(for: path)
        if let previous = recoveryWritten, previous != location { removeRecovery() }
        recoveryGeneration += 1
        // Taken as written from now on: a removal asked for before the write is done is
        // ordered after it by the writer.
        recoveryWritten = location
        return (copy, recoveryGeneration)
    }

    func reportRecoveryWrite(_ result: Result<Bool, any Error>) {
        if case .failure(let error) = result { logger.warning("recovery copy not written: \(error)") }
    }

    func removeRecovery() {
        guard let written = recoveryWritten else { return }
        recoveryGeneration += 1
        recoveryWriter.remove(written, generation: recoveryGeneration)
        recoveryWritten = nil
    }
}
