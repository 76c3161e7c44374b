import BatonShell
import NCursesCore
#if canImport(Glibc)
import Glibc
#endif

/// What the user did at a terminal that shows a shell session.
public enum ShellDisplayEvent: Sendable, Hashable {
    /// What the user typed, decoded.
    case input(ShellInput)
    case resize(rows: Int, columns: Int)
}

/// A terminal showing a shell session's screen: the session's cells drawn through ncurses, and
/// what the user types decoded into keys as keys, pastes and mouse events, so that the session
/// encodes them the way its program asked, whatever this terminal sends.
///
/// It opens the terminal as NCursesBackend does (`newterm` on the descriptors, raw mode, no
/// echo, keypad keys, an input thread polling the terminal and a wake pipe), with bracketed
/// paste on where terminfo says how (`BE`, `BD`, `PS`, `PE`) and mouse reports off until a
/// screen asks for them. SIGWINCH becomes `.resize`; SIGINT, SIGTERM and SIGHUP give the
/// terminal back and then take their course; crash signals restore the terminal's modes and
/// write pre-fetched terminfo strings first (`handlesSignals`).
public final class ShellDisplay: Sendable {
    private let session: ShellDisplaySession

    /// Opens the terminal on `input` and `output` (file descriptors).
    ///
    /// - Parameters:
    ///   - termType: the terminfo name; nil uses `$TERM`.
    ///   - locale: passed to `setlocale(LC_ALL, _)`; "" means the environment's (with C.UTF-8
    ///     for characters when that is plain C).
    ///   - escapeDelayMilliseconds: how long an Escape waits for the rest of a key; a key within
    ///     it comes with Alt.
    ///   - handlesSignals: install the resize and restore handlers.
    ///   - onEvent: called with each event on the input thread as it is read, instead of
    ///     `events()`: a key reaches its stream's event loop with one thread woken, not a task
    ///     resumed through the global executor and then moved.
    public init(
        input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, termType: String? = nil, locale: String = "",
        escapeDelayMilliseconds: Int = 25, handlesSignals: Bool = true, onEvent: (@Sendable (ShellDisplayEvent) -> Void)? = nil
    ) throws(ShellDisplayError) {
        let terminal: CursesTerminal
        do {
            terminal = try CursesTerminal(
                inputFD: input, outputFD: output, termType: termType, locale: locale,
                escapeDelayMilliseconds: escapeDelayMilliseconds, handlesSignals: handlesSignals)
        } catch {
            throw ShellDisplayError(error)
        }
        session = ShellDisplaySession(terminal: terminal, handler: onEvent)
    }

    deinit {
        session.shutdown()
    }

    /// The terminal's size (after shutdown, the last size seen).
    public var size: (rows: Int, columns: Int) {
        session.size
    }

    /// Draws `screen` cropped to the terminal (top left), or padded with blanks when the
    /// terminal is larger; with a `status`, the terminal's last row shows it in reverse video
    /// instead of the screen's row there. Only what differs from the last draw is written (all
    /// of it after a resize or when the size changes), then the terminal is updated once. The
    /// cursor goes where the screen says, hidden when the screen hides it or it falls outside
    /// what is shown. Mouse reports are on while `screen.mouse` is not `.none`. Colours the
    /// terminal lacks map to the nearest it has; strike-through, which ncurses cannot draw, is
    /// left off; control characters are never written.
    public func show(_ screen: ShellScreen, status: String?) {
        session.show(screen, status: status)
    }

    /// Input and size changes, in order, from the start; finishes at shutdown or when input
    /// ends. One stream: every call returns it. Empty when the display was made with `onEvent`.
    public func events() -> AsyncStream<ShellDisplayEvent> {
        session.stream
    }

    /// Gives the terminal back (bracketed paste and mouse reports off, `endwin`), stops the
    /// input thread and finishes the events; idempotent.
    public func shutdown() {
        session.shutdown()
    }
}

/// Why a `ShellDisplay` could not open its terminal.
public enum ShellDisplayError: Error, Hashable, CustomStringConvertible {
    case localeUnavailable(name: String)
    case unusableDescriptor(fd: Int32, errno: Int32)
    case wakePipeFailed(errno: Int32)
    /// ncurses has no terminfo entry for the terminal type (nil: `$TERM`), or could not set it up.
    case terminalSetupFailed(termType: String?)
    /// The terminal type cannot move the cursor to a row and column (`TERM=dumb`).
    case terminalCannotMoveCursor(termType: String?)

    init(_ failure: CursesTerminal.OpenFailure) {
        switch failure {
        case let .localeUnavailable(name): self = .localeUnavailable(name: name)
        case let .unusableDescriptor(fd, code): self = .unusableDescriptor(fd: fd, errno: code)
        case let .wakePipeFailed(code): self = .wakePipeFailed(errno: code)
        case let .setupFailed(termType): self = .terminalSetupFailed(termType: termType)
        case let .cannotMoveCursor(termType): self = .terminalCannotMoveCursor(termType: termType)
        }
    }

    /// A sentence saying what failed and what to do about it.
    public var description: String {
        let name = { (type: String?) in type.map { "\"\($0)\"" } ?? "named by $TERM" }
        switch self {
        case let .localeUnavailable(locale):
            return "the locale \"\(locale)\" is not available; install it or pass another one (for example \"C.UTF-8\")"
        case let .unusableDescriptor(fd, code):
            return "file descriptor \(fd) cannot be used for the terminal (errno \(code))"
        case let .wakePipeFailed(code):
            return "could not create the input thread's wake-up pipe (errno \(code))"
        case let .terminalSetupFailed(termType):
            return "ncurses could not set up the terminal type \(name(termType)); check TERM and that its terminfo entry is installed"
        case let .terminalCannotMoveCursor(termType):
            return "the terminal type \(name(termType)) cannot move the cursor, which a shared shell's screen needs; set TERM to your terminal's type (for example TERM=xterm-256color)"
        }
    }
}
