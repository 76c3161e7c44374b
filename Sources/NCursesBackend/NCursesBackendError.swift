import NCursesCore

/// Why an `NCursesBackend` could not start.
public enum NCursesBackendError: Error, Equatable, CustomStringConvertible {
    /// `setlocale` refused the named locale (for example "C.UTF-8" on a system without it).
    case localeUnavailable(name: String)
    /// A file descriptor given for input or output could not be duplicated or opened as a stream.
    case unusableDescriptor(fd: Int32, errno: Int32)
    /// The pipe that wakes the input thread could not be created.
    case wakePipeFailed(errno: Int32)
    /// ncurses has no terminfo entry for the terminal type (nil: `$TERM`), or could not set it up.
    case terminalSetupFailed(termType: String?)
    /// The terminal type has no way to move the cursor to a row and column (`TERM=dumb`).
    case terminalCannotMoveCursor(termType: String?)

    /// A sentence saying what failed and what to do about it.
    public var description: String {
        switch self {
        case let .localeUnavailable(name):
            return "the locale \"\(name)\" is not available; install it or pass another one (for example \"C.UTF-8\")"
        case let .unusableDescriptor(fd, code):
            return "file descriptor \(fd) cannot be used for the terminal (errno \(code))"
        case let .wakePipeFailed(code):
            return "could not create the input thread's wake-up pipe (errno \(code))"
        case let .terminalSetupFailed(termType):
            let name = termType.map { "\"\($0)\"" } ?? "named by $TERM"
            return "ncurses could not set up the terminal type \(name); check TERM and that its terminfo entry is installed"
        case let .terminalCannotMoveCursor(termType):
            let name = termType.map { "\"\($0)\"" } ?? "named by $TERM"
            return "the terminal type \(name) cannot move the cursor, which Baton's screen needs; run it in a terminal such as xterm or tmux, with TERM set to that terminal's type (for example TERM=xterm-256color)"
        }
    }
}

extension NCursesBackendError {
    /// The backend's word for why the shared terminal could not open.
    init(_ failure: CursesTerminal.OpenFailure) {
        switch failure {
        case let .localeUnavailable(name): self = .localeUnavailable(name: name)
        case let .unusableDescriptor(fd, code): self = .unusableDescriptor(fd: fd, errno: code)
        case let .wakePipeFailed(code): self = .wakePipeFailed(errno: code)
        case let .setupFailed(termType): self = .terminalSetupFailed(termType: termType)
        case let .cannotMoveCursor(termType): self = .terminalCannotMoveCursor(termType: termType)
        }
    }
}
