#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the signal handlers need to give the terminal back, prepared in advance
/// so the handlers only read memory and call async-signal-safe functions.
struct SignalRestoreState {
    /// 1 while a session has the terminal in curses mode.
    var active: Int32 = 0
    /// Write end of the active session's wake pipe, or -1.
    var wakeFD: Int32 = -1
    /// The terminal output descriptor the restore bytes go to, or -1.
    var outputFD: Int32 = -1
    /// The descriptor whose saved termios is restored, or -1 when none was a terminal.
    var termiosFD: Int32 = -1
    /// The terminal modes from before ncurses started.
    var modes = termios()
    /// Pre-fetched terminfo strings (sgr0, cnorm, rmkx, rmcup) with padding removed.
    var restoreBytes: UnsafeMutablePointer<UInt8>?
    /// How many bytes `restoreBytes` holds.
    var restoreCount: Int = 0
    /// The termination signal already forwarded to the input thread, or 0.
    var forwardedTermination: Int32 = 0
}
