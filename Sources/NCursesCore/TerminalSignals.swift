#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's signal handling while a `CursesTerminal` (NCursesBackend's or ShellDisplay's)
/// owns the terminal.
///
/// - SIGWINCH: the handler writes the signal number to the session's wake pipe;
///   the input thread then reads the size with `TIOCGWINSZ` and calls `resizeterm`.
/// - SIGINT, SIGTERM, SIGHUP: the handler forwards the signal through the wake
///   pipe; the input thread calls `endwin` under `CursesTerminal.lock` and re-raises
///   the signal with its default action, so the exit status says which signal
///   ended the process. If no input thread can take it (none active, or the same
///   kind of signal arrives a second time), the handler restores the terminal
///   itself as for fatal signals and re-raises.
/// - SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE: the handler (installed
///   with `SA_RESETHAND`) restores the saved termios with `tcsetattr` and writes
///   the pre-fetched terminfo strings with `write(2)`, puts back the action that
///   was there before (SIG_DFL, or for example Swift's backtracer), and lets the
///   signal happen again: a fault re-executes its instruction, a sent signal is
///   re-raised.
///
/// Handlers are installed when the first terminal that asks for them opens and
/// the previous actions are put back when the last one is given back.
package enum TerminalSignals {
    static let terminationSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    static let fatalSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]
    static let highestSignal = 65

    /// Shared with the handlers; allocated once and never freed.
    nonisolated(unsafe) static let state: UnsafeMutablePointer<SignalRestoreState> = {
        let pointer = UnsafeMutablePointer<SignalRestoreState>.allocate(capacity: 1)
        pointer.initialize(to: SignalRestoreState())
        return pointer
    }()

    /// The actions in place before ours, indexed by signal number.
    nonisolated(unsafe) static let previousActions: UnsafeMutablePointer<sigaction> = {
        let pointer = UnsafeMutablePointer<sigaction>.allocate(capacity: highestSignal)
        pointer.initialize(repeating: sigaction(), count: highestSignal)
        return pointer
    }()

    /// How many sessions asked for the handlers; guarded by `CursesTerminal.lock`.
    nonisolated(unsafe) static var installCount = 0

    /// Makes the handlers restore this terminal. Call with `CursesTerminal.lock` held.
    package static func activate(wakeFD: Int32, outputFD: Int32, termiosFD: Int32, termios saved: termios, restoreBytes: [UInt8]) {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(restoreBytes.count, 1))
        bytes.initialize(from: restoreBytes, count: restoreBytes.count)
        // Publish the new bytes before anything that points at them; the old
        // buffer is leaked on purpose (a handler may be reading it).
        state.pointee.active = 0
        state.pointee.restoreBytes = bytes
        state.pointee.restoreCount = restoreBytes.count
        state.pointee.outputFD = outputFD
        state.pointee.termiosFD = termiosFD
        state.pointee.modes = saved
        state.pointee.forwardedTermination = 0
        state.pointee.wakeFD = wakeFD
        state.pointee.active = 1
    }

    /// The terminal was given back: handlers have nothing to restore. Call with the lock held.
    package static func deactivate(wakeFD: Int32) {
        guard state.pointee.wakeFD == wakeFD else { return }
        state.pointee.active = 0
        state.pointee.wakeFD = -1
    }

    /// Installs the handlers unless already installed. Call with the lock held.
    package static func install() {
        _ = state
        _ = previousActions
        installCount += 1
        guard installCount == 1 else { return }
        setHandler(for: SIGWINCH, flags: SA_RESTART) { signal in TerminalSignals.handleWindowChange(signal) }
        for signal in terminationSignals {
            setHandler(for: signal, flags: SA_RESTART) { signal in TerminalSignals.handleTermination(signal) }
        }
        for signal in fatalSignals {
            setFatalHandler(for: signal)
        }
    }

    /// Puts back the previous actions once no session needs the handlers. Call with the lock held.
    package static func uninstall() {
        guard installCount > 0 else { return }
        installCount -= 1
        guard installCount == 0 else { return }
        for signal in [SIGWINCH] + terminationSignals + fatalSignals {
            sigaction(signal, previousActions + Int(signal), nil)
        }
    }

    // MARK: Handlers (async-signal-safe: they read `state` and call write, tcsetattr, sigaction, raise)

    private static func handleWindowChange(_ signal: Int32) {
        let fd = state.pointee.wakeFD
        guard fd >= 0 else { return }
        let savedErrno = errno
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(fd, &byte, 1)
        errno = savedErrno
    }

    private static func handleTermination(_ signal: Int32) {
        let fd = state.pointee.wakeFD
        if state.pointee.active != 0, fd >= 0, state.pointee.forwardedTermination == 0 {
            state.pointee.forwardedTermination = signal
            let savedErrno = errno
            var byte = UInt8(truncatingIfNeeded: signal)
            let written = write(fd, &byte, 1)
            errno = savedErrno
            if written == 1 { return }
        }
        restoreTerminalNow()
        raiseWithDefaultAction(signal)
    }

    private static func handleFatal(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?) {
        restoreTerminalNow()
        // Whatever handled this signal before us (SIG_DFL, or Swift's backtracer) gets it next.
        sigaction(signal, previousActions + Int(signal), nil)
        let sentByProcess = (info?.pointee.si_code ?? 0) <= 0
        if sentByProcess {
            // kill(2), raise(3), abort(3): send it again; it arrives once this handler returns.
            raise(signal)
        }
        // A fault returns to the faulting instruction and happens again.
    }

    /// Async-signal-safe terminal restore: saved termios, then the terminfo strings.
    package static func restoreTerminalNow() {
        let current = state
        guard current.pointee.active != 0 else { return }
        current.pointee.active = 0
        let savedErrno = errno
        if current.pointee.termiosFD >= 0 {
            var modes = current.pointee.modes
            _ = tcsetattr(current.pointee.termiosFD, TCSANOW, &modes)
        }
        if let bytes = current.pointee.restoreBytes, current.pointee.outputFD >= 0 {
            var offset = 0
            let count = current.pointee.restoreCount
            while offset < count {
                let written = write(current.pointee.outputFD, bytes + offset, count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        errno = savedErrno
    }

    /// Sets SIG_DFL for `signal`, unblocks it and raises it: with the default
    /// action for SIGINT, SIGTERM and SIGHUP the process ends here.
    package static func raiseWithDefaultAction(_ signal: Int32) {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        #if os(Linux)
        action.__sigaction_handler.sa_handler = SIG_DFL
        #else
        action.__sigaction_u.__sa_handler = SIG_DFL
        #endif
        sigaction(signal, &action, nil)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
    }

    // MARK: Installation

    private static func setHandler(
        for signal: Int32, flags: Int32, _ handler: @escaping @convention(c) (Int32) -> Void
    ) {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.sa_flags = flags
        #if os(Linux)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigaction(signal, &action, previousActions + Int(signal))
    }

    private static func setFatalHandler(for signal: Int32) {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_SIGINFO | Int32(bitPattern: UInt32(SA_RESETHAND))
        let handler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
            signal, info, _ in TerminalSignals.handleFatal(signal, info)
        }
        #if os(Linux)
        action.__sigaction_handler.sa_sigaction = handler
        #else
        action.__sigaction_u.__sa_sigaction = handler
        #endif
        sigaction(signal, &action, previousActions + Int(signal))
    }
}
