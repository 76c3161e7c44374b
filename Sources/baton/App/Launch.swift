import ArgumentParser
import BatonApp
import BatonCommands
import BatonMembership
import BatonRuntime
import FoundationEssentials
import Glibc
import Handoff
import HandoffCLI
import HandoffMulticast
import HandoffStore
import Logging
import NCursesBackend
import HandoffWire
import BatonFiles
import ShellHost

/// Wires the real network to the real terminal for one session.
@MainActor
struct Launch {
    let network: NetworkOptions
    let options: LaunchOptions
    /// `baton follow`: find the activity as a continue would, and follow it live instead.
    var follow = false

    /// A new editing session for `file` (read when it exists), and what the UI says first:
    /// a file over the state limit is edited here and not handed off, and the UI says why.
    static func editorSession(
        file: String?, stateLimit: Int = ActivityCenter.Configuration.defaultTextLimit
    ) throws -> (session: Session, opening: [AppMessage]) {
        guard let file else { return (.editor(EditorState(text: "", filePath: nil)), []) }
        var state: EditorState
        do {
            let opened = try FileStore().open(path: file)
            state = EditorState(
                text: opened?.text ?? "", filePath: file, lineEnding: opened?.lineEnding ?? .lf,
                isReadOnly: opened?.isReadOnly ?? false, disk: opened?.stamp)
            // Unsaved changes a previous baton left for this file: asked about before the UI.
            let recovery = RecoveryStore.standard()
            if let copy = recovery.find(path: RecoveryStore.absolute(file)), copy.text != opened?.text,
               askYesNo(RecoveryStore.question(for: copy, fileText: opened?.text)) {
                state = EditorState(
                    buffer: TextBuffer(text: copy.text), filePath: file, isDirty: true,
                    lineEnding: opened?.lineEnding ?? .lf, isReadOnly: opened?.isReadOnly ?? false, disk: opened?.stamp)
            }
        } catch {
            throw CommandFailure(error.description)
        }
        let bytes = state.buffer.text.utf8.count
        let tooLarge = BatonApp.fileTooLargeToHandOff(name: state.fileName ?? file, bytes: bytes, limit: stateLimit)
        return (.editor(state), tooLarge.map { [.handoffOff($0)] } ?? [])
    }

    /// Asks `question` on standard error and reads y or n from standard input; anything but y is no.
    static func askYesNo(_ question: String) -> Bool {
        Console.diagnostic(question)
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmed(newlines: false).lowercased())
    }

    /// Joins the network, continues an activity first if asked, then runs the UI until the user quits.
    ///
    /// Everything that can fail before the UI starts fails with a one-line message and exit
    /// status 1, leaving the terminal untouched.
    /// `start` is taken, not borrowed: nothing here holds it once the Program has it (see
    /// `EditCommand.run`).
    func run(start: consuming Session, opening startOpening: [AppMessage] = [], continueType: String?) async throws {
        try Self.requireTerminal()
        // A follower or a continue receives a large state too (`baton edit` did this already).
        EditCommand.returnLargeBuffersToTheSystem()
        let logger = try options.log.makeLogger()
        let registry = try network.loadRegistry()
        // A type this baton could never continue fails now, not after --wait seconds of asking;
        // a type's last label alone (counter) stands for the one declared type it ends.
        let continueType = options.continueActivity ? try registry.continuableType(continueType, program: "baton") : continueType
        // The nearby list is redrawn at most every 250 ms (`Program`'s nearbyRefreshInterval):
        // news of the directory is taken no more often, however many peers change.
        let joined = try await JoinedNetwork.join(
            network, app: "baton", version: Baton.version, logger: logger, mustBeOnline: options.continueActivity,
            configure: { $0.newsFrame = .milliseconds(250) })
        let center = joined.center
        let keySource = joined.keySource
        let peer = joined.peer
        let state = joined.state
        let endpoint = joined.endpoint
        // Every running Baton holds this machine's key-value stores and answers peers about them.
        let stores = StoreSync(center: center, folder: StoreFile.defaultFolder(), logger: logger)
        stores.resolvers = ResolveCommand.resolvers(environment: ProcessInfo.processInfo.environment)
        // The editor's clipboard (Ctrl-K, Ctrl-U) is the `clipboard` key of the `baton` store.
        let clipboard = (try? stores.store(named: StoreText.defaultStore)).map(StoreClipboard.init(store:))
        // So are the editor's display toggles (Alt-N, Alt-S, Alt-C, Alt-M), the `editorDisplay` key.
        let displayPreference = clipboard.map { StoreDisplayPreference(store: $0.store) }
        stores.problems.forEach { logger.warning("\(PeerText.visible($0))") }
        stores.start()
        // At the end, what was taken since the keeper's last round is stored too.
        defer { joined.stopKeeping() }

        var session = consume start
        var opening = startOpening
        var continued: UserActivity?
        if follow {
            let found: FollowAtLaunch.Found
            do {
                found = try await FollowAtLaunch.find(
                    center: center, type: continueType, from: options.from, timeout: options.wait.duration, keySource: keySource)
            } catch {
                stores.stop()
                await center.shutdown()
                throw error
            }
            switch found {
            case .session(let followed, let messages):
                (session, opening) = (followed, messages)
            case .shell(let entry):
                // A shell session is watched in a terminal of its own, not in the app.
                defer { stores.stop() }
                let status = try await ShellTerminal.join(
                    entry, center: center, name: peer.name, role: .follow, logger: logger)
                await center.shutdown()
                throw ExitCode(Int32(status))
            }
        } else if options.continueActivity {
            let outcome = await ContinueAtLaunch.run(
                center: center, type: continueType, from: options.from, timeout: options.wait.duration)
            switch outcome {
            case .continued(let activity) where activity.activityType == ShellKeeper.activityType:
                // A shell session is continued live: this terminal asks to drive it.
                defer { stores.stop() }
                let status = try await ShellTerminal.join(
                    activity, center: center, name: peer.name, role: .drive, logger: logger)
                await center.shutdown()
                throw ExitCode(Int32(status))
            case .continued(let activity):
                let peerName = activity.peer.map { PeerText.visible($0.name) }
                guard let restored = Session(activityType: activity.activityType, userInfo: activity.userInfo, from: peerName)
                else {
                    stores.stop()
                    await center.shutdown()
                    throw CommandFailure("The \(activity.activityType) activity cannot be shown by this version of baton.")
                }
                let placed = FileStore().placing(restored)
                continued = activity
                session = placed
                opening = [.continued(placed, from: peerName ?? "a peer")]
                logger.info("continued \(PeerText.visible(activity.activityType)) from \(peerName ?? "?")")
            case .failed(let error):
                // Read before the shutdown: nothing found may be a key no other machine shares.
                let message = KeyAdvice.continueFailed(error, otherKeySources: center.otherKeySources, keySource: keySource)
                stores.stop()
                await center.shutdown()
                throw CommandFailure(message)
            case .interrupted(let signo):
                // Nothing was restored and no UI was opened: say so, and end as the signal would.
                logger.info("signal \(signo) while continuing: nothing restored")
                ContinueAtLaunch.writeToStandardError("baton: cancelled; nothing was restored.\n")
                stores.stop()
                await center.shutdown()
                NCursesBackend.raiseWithDefaultAction(signo)
                throw ExitCode(128 + signo)  // not reached: the signal ends the process
            }
        }

        let backend: NCursesBackend
        do {
            backend = try NCursesBackend()
        } catch {
            stores.stop()
            await center.shutdown()
            throw CommandFailure(error.description)
        }
        let program = Program(
            backend: backend, center: center, session: consume session,
            status: StatusInfo(peerName: peer.name, endpoint: endpoint, network: state, peersHeard: 0),
            recovery: RecoveryStore.standard(), clipboard: clipboard, displayPreference: displayPreference,
            logger: logger)
        program.lastContinued = continued
        program.giveBackPages = {
            ProgramPages.trimHeap()
            return ProgramPages.giveBack()
        }
        // SIGINT, SIGTERM, SIGHUP: the terminal is already restored; the recovery copy of
        // unsaved changes is written at once, then withdraw (peers forget this session at
        // once), then the devices and stores are written, and end with the signal's status.
        // 300 ms at most: what waits on the disk comes after the WITHDRAW, which must not wait.
        backend.onTerminationSignal { signo in
            Task.detached {
                try? await Task.sleep(for: .milliseconds(300))
                NCursesBackend.raiseWithDefaultAction(signo)
            }
            Task { @MainActor in
                program.writeRecoveryNow()
                logger.info("signal \(signo): withdrawing and exiting")
                await center.shutdown()
                joined.stopKeeping()
                stores.stop()
                NCursesBackend.raiseWithDefaultAction(signo)
            }
        }
        // In a task of the main actor's own: the command's task is not isolated, and a task
        // whose base is not the main actor resumes each await through Swift's cooperative pool
        // before it hops back, a thread more between every key and the screen.
        await Task { @MainActor in await program.run(opening: opening) }.value
        backend.shutdown()
        if let (shell, follow) = program.chosenShell {
            // A shell session chosen in the nearby list: this terminal now drives it (or
            // follows it), as `baton --continue-activity dev.baton.shell` (`baton follow`) would.
            defer { stores.stop() }
            logger.info("joining the shell session of \(PeerText.visible(shell.record.peer.name)) from the nearby list")
            let status = try await ShellTerminal.join(
                shell, center: center, name: peer.name, role: follow ? .follow : .drive, logger: logger)
            await center.shutdown()
            throw ExitCode(Int32(status))
        }
        stores.stop()
        await center.shutdown()
        logger.info("exit")
    }

    /// The UI reads keys from standard input and draws on standard output: without a terminal
    /// on both (`baton </dev/null`, under nohup, in a script) it fails at once, before the
    /// network or the terminal is touched, and names the program made for scripts.
    static func requireTerminal() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw CommandFailure("baton needs a terminal; for scripts use baton peer (see baton peer --help), or baton monitor to watch peers.")
        }
    }
}
