import CNCurses
import FoundationEssentials
import NCursesCore
import TerminalUI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `TerminalBackend` on ncurses: wide-character output of only the changed
/// cells, wide-character key input, resize, and terminal restore.
///
/// Start-up: sets the locale (`setlocale(LC_ALL, locale)`; with the default ""
/// a plain C/POSIX environment falls back to C.UTF-8 for characters), opens the
/// terminal with `newterm` on the given descriptors (so pipes work without a
/// TTY), and selects raw mode (Ctrl-C, Ctrl-S, Ctrl-Q arrive as keys; no
/// XON/XOFF), no echo, keypad keys, no newline translation, and a short
/// Escape delay.
///
/// Input: a dedicated thread sleeps in `poll(2)` on the input descriptor and a
/// self-pipe; when input is readable it takes the backend's lock (the same one
/// `draw` takes, so ncurses is never used by two threads at once) and drains
/// keys with a non-blocking `wget_wch`.
///
/// Resize and signals (when `handlesSignals` is true, the default): SIGWINCH
/// wakes the input thread through the self-pipe; it reads the size with
/// `TIOCGWINSZ`, calls `resizeterm`, and sends `.resize`. SIGINT, SIGTERM and
/// SIGHUP end curses mode and then re-raise with the default action. Crash
/// signals (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE) restore the saved
/// terminal modes and write pre-fetched terminfo strings (sgr0, cnorm, rmkx,
/// rmcup) from the handler, then let the signal take its previous course.
/// Handlers are installed at start-up and removed at `shutdown()`.
public final class NCursesBackend: DirectInputBackend {
    private let session: NCursesSession

    /// Opens the terminal on `input` and `output` (file descriptors, standard input and output by default).
    ///
    /// - Parameters:
    ///   - termType: the terminfo name; nil uses `$TERM`.
    ///   - locale: passed to `setlocale(LC_ALL, _)`; "" means the environment's.
    ///   - escapeDelayMilliseconds: how long a lone Escape waits for the rest of a key sequence.
    ///   - handlesSignals: install the resize and restore handlers described above.
    public init(
        input: Int32 = STDIN_FILENO,
        output: Int32 = STDOUT_FILENO,
        termType: String? = nil,
        locale: String = "",
        escapeDelayMilliseconds: Int = 25,
        handlesSignals: Bool = true
    ) throws(NCursesBackendError) {
        session = try NCursesSession(
            inputFD: input, outputFD: output, termType: termType, locale: locale,
            escapeDelayMilliseconds: escapeDelayMilliseconds, handlesSignals: handlesSignals)
    }

    deinit {
        session.shutdown()
    }

    /// Lets the program end in order on SIGINT, SIGTERM or SIGHUP: the terminal is restored
    /// first, then `handler` runs on the input thread with the signal, and must end the
    /// process — normally with `raiseWithDefaultAction(_:)` once its own cleanup is done.
    /// Without a handler the signal is raised again at once.
    public func onTerminationSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        NCursesSession.lock.withLock { session.terminationHandler = handler }
    }

    /// Raises `signal` with its default action, so the process ends with the status a shell expects.
    public static func raiseWithDefaultAction(_ signal: Int32) {
        TerminalSignals.raiseWithDefaultAction(signal)
    }

    /// The terminal's size as ncurses knows it (after shutdown, the last size seen).
    public var size: TerminalSize {
        session.size
    }

    /// Writes the cells that changed since the last frame and places or hides the cursor.
    public func draw(_ frame: ScreenBuffer, cursor: CursorPosition?) {
        session.draw(frame, cursor: cursor)
    }

    /// The single stream of input batches; it finishes when input ends or at shutdown.
    public func events() -> AsyncStream<[TerminalEvent]> {
        session.inputStream()
    }

    /// Hands input batches to `receiver` on the input thread from now on, instead of into
    /// `events()`; returns the batches read before, or nil when `events()` already has them.
    /// See `DirectInputBackend`.
    public func handInput(to receiver: @escaping @Sendable ([TerminalEvent]) -> Void) -> [[TerminalEvent]]? {
        session.handInput(to: receiver)
    }

    /// Ends curses mode (endwin), stops the input thread and frees the screen; idempotent.
    public func shutdown() {
        session.shutdown()
    }

    /// Mouse reports on or off (ncurses' `mousemask`: the first button's press and the wheel).
    public func setMouseReporting(_ on: Bool) {
        _ = session.terminal.withScreen { _ in
            mouseinterval(0)
            _ = mousemask(on ? baton_button_pressed(1) | baton_button_pressed(4) | baton_button_pressed(5) : 0, nil)
        }
    }

    /// The raw bytes of a terminfo string capability of this terminal, as
    /// `tigetstr` gives them (for example "kcub1", the left-arrow key); nil if
    /// the terminal lacks it or the backend is shut down.
    public func terminfoString(_ capability: String) -> [UInt8]? {
        session.terminfoString(capability)
    }
}
