import CNCurses
import FoundationEssentials
import NIOConcurrencyHelpers
import NCursesCore
import TerminalUI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One ncurses screen and its input thread; `NCursesBackend` is its public face.
///
/// Threading: the terminal (`CursesTerminal`, shared with ShellDisplay) keeps every ncurses call
/// of every session under the process-wide `CursesTerminal.lock`, after `set_term` to this
/// session's screen. `draw` and `size` run on the caller's thread; keys are read on the input
/// thread, which sleeps in `poll(2)` on the input descriptor and a wake pipe and takes the lock
/// only to drain what arrived.
final class NCursesSession: @unchecked Sendable, CursesInputHandler {
    /// Guards every ncurses call and this class's mutable state.
    static var lock: NIOLock { CursesTerminal.lock }

    let terminal: CursesTerminal

    // Guarded by `lock`.
    var lastFrame: ScreenBuffer?
    var lastScreenSize: TerminalSize?
    /// Whether `lastFrame` held a cluster too long for an ncurses cell (`writeLongClusters`).
    var lastFrameHeldLongClusters = true
    var cursorVisible: Bool?
    var colorsEnabled = false
    /// The paste being read, between its start and end markers; nil outside a paste.
    var pasteText: String?
    /// The codes this terminal's arrows, Home, End and pages have with Shift, Alt or Ctrl
    /// (ncurses numbers the extended ones as it reads the terminfo entry). Set once, at start.
    var modifiedKeys: [Int32: Key] = [:]
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

    var screen: OpaquePointer? { terminal.screen }
    var outputFile: UnsafeMutablePointer<FILE>? { terminal.outputFile }
    var isShutDown: Bool { terminal.isShutDown }

    init(
        inputFD: Int32, outputFD: Int32, termType: String?, locale: String,
        escapeDelayMilliseconds: Int, handlesSignals: Bool
    ) throws(NCursesBackendError) {
        (stream, continuation) = AsyncStream.makeStream(of: [TerminalEvent].self, bufferingPolicy: .unbounded)
        do {
            terminal = try CursesTerminal(
                inputFD: inputFD, outputFD: outputFD, termType: termType, locale: locale,
                escapeDelayMilliseconds: escapeDelayMilliseconds, handlesSignals: handlesSignals)
        } catch {
            throw NCursesBackendError(error)
        }
        Self.lock.withLock {
            if let screen = terminal.screen {
                set_term(screen)
                if baton_has_colors(), start_color() == OK {
                    let background: Int16 = use_default_colors() == OK ? -1 : 0
                    for color in TerminalColor.allCases {
                        init_pair(Self.colorPair(for: color), Int16(color.rawValue), background)
                    }
                    colorsEnabled = true
                }
                modifiedKeys = NCursesKeyDecoder.modifiedKeyCodes()
            }
            terminal.activateSignalsLocked()
        }
        terminal.startReader(name: "baton.ncurses-input", handler: self)
    }

    /// The screen's size; after shutdown the last size seen. Lock held.
    func currentSizeLocked() -> TerminalSize {
        let size = terminal.sizeLocked()
        return TerminalSize(width: size.columns, height: size.rows)
    }

    var size: TerminalSize {
        Self.lock.withLock { currentSizeLocked() }
    }

    /// A terminfo string capability of this terminal.
    func terminfoString(_ capability: String) -> [UInt8]? {
        terminal.withScreen { _ in Terminfo.terminfoBytes(capability) } ?? nil
    }

    /// Gives the terminal back (endwin), stops the input thread, frees the screen
    /// and finishes the event stream. Idempotent.
    func shutdown() {
        guard terminal.shutdown() else { return }
        finishInput()
    }
}
