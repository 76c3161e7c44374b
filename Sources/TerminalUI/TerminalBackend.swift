/// A terminal the app draws on and reads keys from.
///
/// Contract:
/// - `draw` is called from one task at a time (the program's render loop); it
///   shows `frame` and puts the cursor at `cursor`, or hides it when nil. A frame
///   whose size differs from `size` is clipped or padded, never an error.
/// - `events()` returns the backend's single stream of input: batches of events
///   in arrival order, delivered without busy-waiting, finishing when the input
///   ends or the backend shuts down. Events that arrive before anyone iterates are
///   buffered. Iterate it from one task.
/// - `shutdown()` gives the terminal back to the shell and finishes the event
///   stream. It is idempotent; `draw` after it does nothing.
public protocol TerminalBackend: AnyObject, Sendable {
    /// The current size in columns and rows.
    var size: TerminalSize { get }

    /// Shows `frame`; `cursor` nil hides the cursor.
    func draw(_ frame: ScreenBuffer, cursor: CursorPosition?)

    /// The stream of input event batches; see the protocol's contract.
    func events() -> AsyncStream<[TerminalEvent]>

    /// Restores the terminal and ends input; safe to call more than once.
    func shutdown()

    /// Asks the terminal to report mouse presses and the wheel as `.mouse` events, or to stop
    /// (then the terminal's own selection works as usual). Off until asked.
    func setMouseReporting(_ on: Bool)
}

extension TerminalBackend {
    /// A backend without a mouse ignores the request.
    public func setMouseReporting(_ on: Bool) {}
}

/// A backend that can pass its input to a receiver on the thread that reads it, rather than
/// through `events()`, which hands each batch to whichever thread iterates the stream: one
/// thread to wake fewer between a key and the screen.
///
/// Contract, besides `TerminalBackend`'s:
/// - `handInput(to:)` returns the batches read before it, for the caller to take first, and
///   from then on calls `receiver` with each batch, in order, on the reading thread, one at a
///   time; the receiver may wait (for the thread that draws, say), and input waits with it.
///   The backend's own locks are not held while it runs, so it may draw.
/// - It returns nil, and changes nothing, when `events()` was asked for first: the batches
///   already go into the stream.
/// - `events()` still finishes when input ends or at shutdown, after the last batch was passed.
public protocol DirectInputBackend: TerminalBackend {
    func handInput(to receiver: @escaping @Sendable ([TerminalEvent]) -> Void) -> [[TerminalEvent]]?
}
