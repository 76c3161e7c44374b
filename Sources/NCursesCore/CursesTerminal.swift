import CNCurses
import FoundationEssentials
import Dispatch
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One ncurses screen on two descriptors, in the modes Baton's terminals use, with the wake pipe
/// its input thread polls and the signal handlers that give the terminal back: what
/// NCursesBackend and ShellDisplay share. What each draws and how it reads keys is its own.
///
/// Threading: ncurses keeps process-wide state (the current screen, `stdscr`, `LINES`, `COLS`),
/// so every ncurses call of every terminal happens with the process-wide `CursesTerminal.lock`
/// held and after `set_term` to that terminal's screen.
package final class CursesTerminal: @unchecked Sendable {
    /// Guards every ncurses call in the process and this class's mutable state.
    package static let lock = NIOLock()

    /// Why a terminal could not be opened.
    package enum OpenFailure: Error {
        case localeUnavailable(name: String)
        case unusableDescriptor(fd: Int32, errno: Int32)
        case wakePipeFailed(errno: Int32)
        case setupFailed(termType: String?)
        case cannotMoveCursor(termType: String?)
    }

    package let inputFD: Int32
    package let outputFD: Int32
    /// Read end of the wake pipe (polled by the input thread).
    let wakeReadFD: Int32
    /// Write end: a 0 byte means "stop", a signal number means that signal arrived.
    let wakeWriteFD: Int32
    package let handlesSignals: Bool

    // Guarded by `lock`.
    package private(set) var screen: OpaquePointer?
    package private(set) var inputFile: UnsafeMutablePointer<FILE>?
    package private(set) var outputFile: UnsafeMutablePointer<FILE>?
    package private(set) var isShutDown = false
    /// Whether bracketed paste is on (the terminal's terminfo has `BE`, `BD`, `PS` and `PE`).
    package private(set) var bracketedPaste = false
    /// The size last read from ncurses, reported after shutdown.
    package private(set) var knownSize = (rows: 0, columns: 0)
    private var signalsInstalled = false
    private var savedModes = termios()
    private var termiosFD: Int32 = -1

    let readerFinished = DispatchSemaphore(value: 0)
    var readerStarted = false

    /// Opens the terminal: the locale (`setlocale(LC_ALL, locale)`, "" the environment's), then
    /// `newterm` on copies of `inputFD` and `outputFD`, in raw mode without echo, keypad keys
    /// on, no newline translation, non-blocking reads, the escape delay given, bracketed paste
    /// on where terminfo says how, and the signal handlers installed when `handlesSignals`.
    /// Colours are the caller's, with the lock held (`withScreen`), before `activateSignals`.
    package init(
        inputFD: Int32, outputFD: Int32, termType: String?, locale: String,
        escapeDelayMilliseconds: Int, handlesSignals: Bool
    ) throws(OpenFailure) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.handlesSignals = handlesSignals
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
            releaseLocked()
            Self.lock.unlock()
            close(wakeReadFD)
            close(wakeWriteFD)
            throw error
        }
    }

    /// Sets `LC_ALL` to `name`. With "" (the environment's choice), if that
    /// leaves the plain C/POSIX locale, which cannot show wide characters,
    /// LC_CTYPE falls back to C.UTF-8 when the system has it.
    package static func configureLocale(_ name: String) throws(OpenFailure) {
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
    private func start(termType: String?, escapeDelayMilliseconds: Int) throws(OpenFailure) {
        // Copies closed on exec: a program started while the terminal is open (the shell
        // session's, above all) must not hold this terminal open.
        let inputCopy = fcntl(inputFD, F_DUPFD_CLOEXEC, 0)
        guard inputCopy >= 0, let input = fdopen(inputCopy, "r") else {
            if inputCopy >= 0 { close(inputCopy) }
            throw .unusableDescriptor(fd: inputFD, errno: errno)
        }
        inputFile = input
        let outputCopy = fcntl(outputFD, F_DUPFD_CLOEXEC, 0)
        guard outputCopy >= 0, let output = fdopen(outputCopy, "w") else {
            if outputCopy >= 0 { close(outputCopy) }
            throw .unusableDescriptor(fd: outputFD, errno: errno)
        }
        outputFile = output

        // The modes to give back in a signal handler: those of the terminal
        // ncurses will change (it uses the output descriptor, then the input).
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
        let otherKeys = Terminfo.otherTerminalKeys(fd: outputFD)

        let created: OpaquePointer?
        if let termType {
            created = termType.withCString { newterm($0, output, input) }
        } else {
            created = newterm(nil, output, input)
        }
        guard let created else { throw .setupFailed(termType: termType) }
        screen = created
        CursesScreens.opened()
        set_term(created)
        // A terminal that cannot put the cursor at a row and column (TERM=dumb, or an entry
        // without `cup`) would show only the last line drawn, while keys still changed the text
        // nobody sees: refused, as an unknown type is.
        guard Terminfo.terminfoBytes("cup") != nil else {
            throw .cannotMoveCursor(termType: termType ?? Terminfo.environmentTerm())
        }

        guard let window = baton_stdscr() else { throw .setupFailed(termType: termType) }
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

        bracketedPaste = Terminfo.startBracketedPaste(output)
        for (sequence, code) in otherKeys where key_defined(sequence) == 0 {
            _ = define_key(sequence, code)
        }
    }

    /// Lets the signal handlers give this terminal back: the saved modes, and the terminfo
    /// strings that end bracketed paste and mouse reports, reset the attributes, show the
    /// cursor, leave keypad mode and the alternate screen. Lock held, after the caller's set-up.
    package func activateSignalsLocked() {
        guard handlesSignals, let screen else { return }
        set_term(screen)
        var restore: [UInt8] = []
        if bracketedPaste { restore += Terminfo.terminfoBytes("BD").map(Terminfo.removingPadding) ?? [] }
        restore += Terminfo.mouseOffBytes()
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            restore += Terminfo.terminfoBytes(capability).map(Terminfo.removingPadding) ?? []
        }
        TerminalSignals.activate(
            wakeFD: wakeWriteFD, outputFD: outputFD, termiosFD: termiosFD, termios: savedModes, restoreBytes: restore)
    }

    /// The screen's size as (rows, columns); after shutdown the last size seen. Lock held.
    package func sizeLocked() -> (rows: Int, columns: Int) {
        guard let screen, !isShutDown else { return knownSize }
        set_term(screen)
        var rows: Int32 = 0
        var columns: Int32 = 0
        baton_getmaxyx(baton_stdscr(), &rows, &columns)
        knownSize = (Int(rows), Int(columns))
        return knownSize
    }

    /// Runs `body` with the lock held and this terminal's screen current; nil after shutdown.
    package func withScreen<T>(_ body: (UnsafeMutablePointer<WINDOW>) -> T) -> T? {
        Self.lock.withLock {
            guard let screen, !isShutDown else { return nil }
            set_term(screen)
            guard let window = baton_stdscr() else { return nil }
            return body(window)
        }
    }

    /// Gives the terminal back (endwin), stops the input thread and frees the screen.
    /// Returns false when that was done before.
    package func shutdown() -> Bool {
        let first = Self.lock.withLock { () -> Bool in
            guard !isShutDown else { return false }
            endCursesLocked()
            return true
        }
        guard first else { return false }
        var stop: UInt8 = 0
        _ = write(wakeWriteFD, &stop, 1)
        if readerStarted { readerFinished.wait() }
        Self.lock.withLock { releaseLocked() }
        close(wakeReadFD)
        close(wakeWriteFD)
        return true
    }

    /// Bracketed paste off, endwin, and the signal handlers told; leaves the screen allocated. Lock held.
    package func endCursesLocked() {
        guard !isShutDown else { return }
        isShutDown = true
        if let screen {
            set_term(screen)
            if bracketedPaste, let off = Terminfo.capability("BD"), let outputFile { _ = Terminfo.send(off, to: outputFile) }
            endwin()
        }
        if handlesSignals {
            TerminalSignals.deactivate(wakeFD: wakeWriteFD)
        }
    }

    /// Retires the screen (freed once no terminal has one open: `CursesScreens`) and closes the
    /// streams. Lock held; the input thread has stopped.
    private func releaseLocked() {
        if let screen {
            if !isShutDown {
                set_term(screen)
                endwin()
            }
            CursesScreens.retire(screen)
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
}
