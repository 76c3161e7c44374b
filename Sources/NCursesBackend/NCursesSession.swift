import CNCurses
import Foundation
import TerminalUI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One ncurses screen and its input thread; `NCursesBackend` is its public face.
///
/// Threading: ncurses keeps process-wide state (the current screen, `stdscr`,
/// `LINES`, `COLS`), so every ncurses call of every session happens with the
/// process-wide `NCursesSession.lock` held and after `set_term` to this
/// session's screen. `draw` and `size` run on the caller's thread; keys are read
/// on the input thread, which sleeps in `poll(2)` on the input descriptor and a
/// wake pipe and takes the lock only to drain what arrived.
final class NCursesSession: @unchecked Sendable {
    /// Guards every ncurses call and this class's mutable state.
    static let lock = NSLock()

    let inputFD: Int32
    let outputFD: Int32
    /// Read end of the wake pipe (polled by the input thread).
    let wakeReadFD: Int32
    /// Write end: a 0 byte means "stop", a signal number means that signal arrived.
    let wakeWriteFD: Int32
    let handlesSignals: Bool

    // Guarded by `lock`.
    var screen: OpaquePointer?
    var inputFile: UnsafeMutablePointer<FILE>?
    var outputFile: UnsafeMutablePointer<FILE>?
    var isShutDown = false
    var lastFrame: ScreenBuffer?
    var lastScreenSize: TerminalSize?
    var cursorVisible: Bool?
    /// The size last read from ncurses, reported after shutdown.
    var knownSize = TerminalSize(width: 0, height: 0)
    var colorsEnabled = false
    /// Whether bracketed paste is on (the terminal's terminfo has `BE`, `BD`, `PS` and `PE`).
    var bracketedPaste = false
    /// The paste being read, between its start and end markers; nil outside a paste.
    var pasteText: String?
    var signalsInstalled = false
    /// Called on the input thread after SIGINT, SIGTERM or SIGHUP restored the terminal;
    /// when nil the signal is raised again with its default action at once.
    var terminationHandler: (@Sendable (Int32) -> Void)?

    let stream: AsyncStream<[TerminalEvent]>
    let continuation: AsyncStream<[TerminalEvent]>.Continuation
    /// Where input batches go: held until someone asks for them, then into `stream` or to a
    /// receiver on the input thread (`handInput(to:)`). Lock held.
    var inputRoute = InputRoute.undecided([])

    enum InputRoute {
        case undecided([[TerminalEvent]])
        case stream
        case receiver(@Sendable ([TerminalEvent]) -> Void)
    }
    private let readerFinished = DispatchSemaphore(value: 0)
    private var readerStarted = false

    init(
        inputFD: Int32, outputFD: Int32, termType: String?, locale: String,
        escapeDelayMilliseconds: Int, handlesSignals: Bool
    ) throws(NCursesBackendError) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.handlesSignals = handlesSignals
        (stream, continuation) = AsyncStream.makeStream(of: [TerminalEvent].self, bufferingPolicy: .unbounded)

        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw .wakePipeFailed(errno: errno) }
        wakeReadFD = pipeFDs[0]
        wakeWriteFD = pipeFDs[1]
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }

        Self.lock.lock()
        do {
            try Self.configureLocale(locale)
            try start(termType: termType, escapeDelayMilliseconds: escapeDelayMilliseconds)
            Self.lock.unlock()
        } catch {
            releaseResources()
            Self.lock.unlock()
            close(wakeReadFD)
            close(wakeWriteFD)
            throw error
        }
        startReader()
    }

    /// Sets `LC_ALL` to `name`. With "" (the environment's choice), if that
    /// leaves the plain C/POSIX locale, which cannot show wide characters,
    /// LC_CTYPE falls back to C.UTF-8 when the system has it.
    static func configureLocale(_ name: String) throws(NCursesBackendError) {
        let result = setlocale(LC_ALL, name)
        if result == nil && !name.isEmpty {
            throw .localeUnavailable(name: name)
        }
        guard name.isEmpty, !baton_locale_is_utf8() else { return }
        let ctype = setlocale(LC_CTYPE, nil).map { String(cString: $0) } ?? "C"
        if ctype == "C" || ctype == "POSIX" {
            _ = setlocale(LC_CTYPE, "C.UTF-8")
        }
    }

    /// Opens the screen with `newterm` and puts it in the modes Baton needs. Lock held.
    private func start(termType: String?, escapeDelayMilliseconds: Int) throws(NCursesBackendError) {
        let inputCopy = dup(inputFD)
        guard inputCopy >= 0, let input = fdopen(inputCopy, "r") else {
            if inputCopy >= 0 { close(inputCopy) }
            throw .unusableDescriptor(fd: inputFD, errno: errno)
        }
        inputFile = input
        let outputCopy = dup(outputFD)
        guard outputCopy >= 0, let output = fdopen(outputCopy, "w") else {
            if outputCopy >= 0 { close(outputCopy) }
            throw .unusableDescriptor(fd: outputFD, errno: errno)
        }
        outputFile = output

        // The modes to give back in a signal handler: those of the terminal
        // ncurses will change (it uses the output descriptor, then the input).
        var savedModes = termios()
        var termiosFD: Int32 = -1
        for fd in [outputFD, inputFD] where isatty(fd) == 1 {
            if tcgetattr(fd, &savedModes) == 0 {
                termiosFD = fd
                break
            }
        }

        // Ours before newterm, so ncurses does not install its own SIGINT/SIGTERM/SIGWINCH handlers.
        if handlesSignals {
            TerminalSignals.install()
            signalsInstalled = true
        }

        // Read before newterm: loading another entry touches ncurses' current terminal.
        let homeEndKeys = Self.otherHomeEndKeys(fd: outputFD)

        let created: OpaquePointer?
        if let termType {
            created = termType.withCString { newterm($0, output, input) }
        } else {
            created = newterm(nil, output, input)
        }
        guard let created else { throw .terminalSetupFailed(termType: termType) }
        screen = created
        set_term(created)
        // A terminal that cannot put the cursor at a row and column (TERM=dumb, or an entry
        // without `cup`) would show only the last line drawn, while keys still changed the text
        // nobody sees: refused, as an unknown type is.
        guard Self.terminfoBytes("cup") != nil else {
            throw .terminalCannotMoveCursor(termType: termType ?? Self.environmentTerm())
        }

        guard let window = baton_stdscr() else { throw .terminalSetupFailed(termType: termType) }
        raw()
        noecho()
        nonl()

        // ncurses 6.4 writes its buffer out at every cursor move until the screen has been
        // left and resumed once (until then it flushes as it would for a low-level terminfo
        // program): a key's frame went out in three writes, the status bar's first and
        // the typed letter last. Leaving and resuming here, before anything is drawn, makes
        // each doupdate one write. The resume restores the terminal modes set above (ncurses
        // keeps them as the program's) and clears the screen, as the first frame would. It
        // comes before keypad mode, which leaving turns off and resuming does not turn on
        // again (ncurses would only at the first key read, so an arrow typed first would come
        // in the other mode's sequence), and before colours start, so that leaving does not
        // reset the terminal's palette (`oc`).
        endwin()
        doupdate()

        keypad(window, true)
        nodelay(window, true)
        meta(window, true)
        intrflush(window, false)
        leaveok(window, false)
        typeahead(-1)
        set_escdelay(Int32(clamping: escapeDelayMilliseconds))

        bracketedPaste = Self.startBracketedPaste(output)
        for (sequence, code) in homeEndKeys where key_defined(sequence) == 0 {
            _ = define_key(sequence, code)
        }

        if baton_has_colors(), start_color() == OK {
            let background: Int16 = use_default_colors() == OK ? -1 : 0
            for color in TerminalColor.allCases {
                init_pair(Self.colorPair(for: color), Int16(color.rawValue), background)
            }
            colorsEnabled = true
        }

        if handlesSignals {
            var restore: [UInt8] = []
            for capability in (bracketedPaste ? ["BD"] : []) + ["sgr0", "cnorm", "rmkx", "rmcup"] {
                restore += Self.terminfoBytes(capability).map(Self.removingPadding) ?? []
            }
            TerminalSignals.activate(
                wakeFD: wakeWriteFD, outputFD: outputFD, termiosFD: termiosFD,
                termios: savedModes, restoreBytes: restore)
        }
    }

    /// The screen's size; after shutdown the last size seen. Lock held.
    func currentSizeLocked() -> TerminalSize {
        guard let screen, !isShutDown else { return knownSize }
        set_term(screen)
        var rows: Int32 = 0
        var columns: Int32 = 0
        baton_getmaxyx(baton_stdscr(), &rows, &columns)
        knownSize = TerminalSize(width: Int(columns), height: Int(rows))
        return knownSize
    }

    var size: TerminalSize {
        Self.lock.withLock { currentSizeLocked() }
    }

    /// A terminfo string capability of this terminal.
    func terminfoString(_ capability: String) -> [UInt8]? {
        Self.lock.withLock {
            guard let screen, !isShutDown else { return nil }
            set_term(screen)
            return Self.terminfoBytes(capability)
        }
    }

    /// Gives the terminal back (endwin), stops the input thread, frees the screen
    /// and finishes the event stream. Idempotent.
    func shutdown() {
        let first = Self.lock.withLock { () -> Bool in
            guard !isShutDown else { return false }
            endCursesLocked()
            return true
        }
        guard first else { return }
        var stop: UInt8 = 0
        _ = write(wakeWriteFD, &stop, 1)
        if readerStarted { readerFinished.wait() }
        Self.lock.withLock { releaseResources() }
        close(wakeReadFD)
        close(wakeWriteFD)
        finishInput()
    }

    /// endwin and signal-handler bookkeeping; leaves the screen allocated. Lock held.
    func endCursesLocked() {
        guard !isShutDown else { return }
        isShutDown = true
        if let screen {
            set_term(screen)
            if bracketedPaste, let off = Self.capability("BD"), let outputFile { _ = Self.send(off, to: outputFile) }
            endwin()
        }
        if handlesSignals {
            TerminalSignals.deactivate(wakeFD: wakeWriteFD)
        }
    }

    /// Frees the screen and the streams. Lock held; the input thread has stopped.
    private func releaseResources() {
        if let screen {
            if !isShutDown {
                set_term(screen)
                endwin()
            }
            delscreen(screen)
            self.screen = nil
        }
        if let inputFile { fclose(inputFile) }
        if let outputFile { fclose(outputFile) }
        inputFile = nil
        outputFile = nil
        isShutDown = true
        if signalsInstalled {
            TerminalSignals.deactivate(wakeFD: wakeWriteFD)
            TerminalSignals.uninstall()
            signalsInstalled = false
        }
    }

    private func startReader() {
        readerStarted = true
        let thread = Thread { [self] in
            runInputLoop()
            readerFinished.signal()
        }
        thread.name = "baton.ncurses-input"
        thread.start()
    }
}
