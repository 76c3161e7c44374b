import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets Esc be pressed while nothing but a line is on the terminal (`baton --continue-activity`
/// fetching before the UI opens): the terminal's input goes to non-canonical mode without echo
/// (keys arrive one by one and nothing typed lands on the line), signals stay on (Ctrl-C is
/// still SIGINT), and Esc alone calls `onEscape`. Other keys are dropped, as the in-app
/// progress overlay drops them. `stop()` puts the modes back as they were.
///
/// An Esc is a read that brings the byte 0x1B alone: a function or arrow key's escape sequence
/// arrives in one read with the bytes after it, and is dropped with the other keys.
@MainActor
public final class EscapeKeyWatch {
    private let fd: Int32
    private var saved = termios()
    private var source: DispatchSourceRead?

    /// Starts watching `fd` (standard input), which must be a terminal; nil when it is not, or
    /// its modes cannot be read or set.
    public init?(fd: Int32 = STDIN_FILENO, onEscape: @escaping @MainActor () -> Void) {
        self.fd = fd
        guard isatty(fd) == 1, tcgetattr(fd, &saved) == 0 else { return nil }
        var modes = saved
        modes.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &modes.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &modes) == 0 else { return nil }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                var bytes = [UInt8](repeating: 0, count: 64)
                let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else {
                    // End of input, or an error: nothing more will come; stop asking.
                    self?.source?.cancel()
                    return
                }
                if count == 1, bytes[0] == 0x1B { onEscape() }
            }
        }
        source.resume()
        self.source = source
    }

    /// Stops watching and gives the terminal its modes back.
    public func stop() {
        source?.cancel()
        source = nil
        _ = tcsetattr(fd, TCSANOW, &saved)
    }
}
