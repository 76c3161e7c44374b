import CNCurses
import FoundationEssentials
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `CursesTerminal`'s input thread calls; each call takes the lock itself when it needs it.
package protocol CursesInputHandler: AnyObject, Sendable {
    /// The input descriptor is readable: read what ncurses can decode. Returns whether input
    /// has ended (the loop then stops polling it).
    func inputReadable() -> Bool
    /// SIGWINCH arrived.
    func windowChanged()
    /// SIGINT, SIGTERM or SIGHUP arrived and the terminal has been given back (`endwin`); the
    /// input thread ends after this returns. The handler ends the process, normally with
    /// `TerminalSignals.raiseWithDefaultAction(_:)`.
    func terminated(by signal: Int32)
}

extension CursesTerminal {
    /// Starts the input thread, named `name`: it sleeps in `poll(2)` until the terminal or the
    /// wake pipe is readable and tells `handler`. Runs until `shutdown()` or a termination signal.
    package func startReader(name: String, handler: any CursesInputHandler) {
        readerStarted = true
        // A queue of its own, whose one work item blocks in poll(2) for the terminal's life.
        DispatchQueue(label: name, qos: .userInteractive).async { [self] in
            runInputLoop(handler)
            readerFinished.signal()
        }
    }

    private func runInputLoop(_ handler: any CursesInputHandler) {
        var inputOpen = true
        var descriptors = [
            pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            descriptors[0].fd = inputOpen ? inputFD : -1
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }

            if descriptors[1].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                let count = read(wakeReadFD, &bytes, bytes.count)
                for byte in bytes.prefix(max(count, 0)) {
                    let signal = Int32(byte)
                    switch signal {
                    case 0:
                        return
                    case SIGWINCH:
                        handler.windowChanged()
                    case SIGINT, SIGTERM, SIGHUP:
                        Self.lock.withLock { endCursesLocked() }
                        // The program finishes in order (its handler re-raises); a second
                        // signal meanwhile meets the default action, handlers being removed.
                        handler.terminated(by: signal)
                        return
                    default:
                        break
                    }
                }
            }

            if inputOpen, descriptors[0].revents != 0, handler.inputReadable() {
                inputOpen = false
            }
        }
    }

    /// Whether input has ended, asked when poll said readable: the descriptor has nothing to
    /// read. Where the count cannot be asked for (FIONREAD fails: /dev/null, a closed
    /// descriptor), nil: the caller decides by whether ncurses read anything, since otherwise
    /// poll would report the same readiness at once, forever, and the loop would spin.
    package func inputHasEnded() -> Bool? {
        let available = baton_bytes_available(inputFD)
        if available == 0 { return true }
        return available < 0 ? nil : false
    }

    /// After SIGWINCH: reads the terminal's size with `TIOCGWINSZ` and, when it changed, tells
    /// ncurses with `resizeterm` (which queues `KEY_RESIZE`). Returns whether it changed.
    /// Lock held, screen set.
    package func resizeToWindowLocked() -> Bool {
        guard screen != nil, !isShutDown else { return false }
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard baton_window_size(outputFD, &rows, &columns) == 0 || baton_window_size(inputFD, &rows, &columns) == 0,
              rows > 0, columns > 0 else { return false }
        let before = sizeLocked()
        guard before.rows != Int(rows) || before.columns != Int(columns) else { return false }
        resizeterm(rows, columns)
        return true
    }
}
