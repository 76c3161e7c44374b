import CNCurses
import NCursesCore
import TerminalUI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension NCursesSession {
    /// The input thread found input: drained and passed on; true when input has ended.
    func inputReadable() -> Bool {
        let (events, ended) = drainInput()
        deliver(events)
        if ended { finishInput() }
        return ended
    }

    func windowChanged() {
        deliver(resizeToTerminalSize())
    }

    /// The terminal was given back after SIGINT, SIGTERM or SIGHUP: the program's handler runs,
    /// or the signal is raised again at once.
    func terminated(by signal: Int32) {
        guard let handler = Self.lock.withLock({ terminationHandler }) else {
            TerminalSignals.raiseWithDefaultAction(signal)
            return
        }
        handler(signal)
    }

    /// Passes a batch on by the route chosen (lock taken here); a receiver is called after the
    /// lock is released, since it may wait for the thread that draws.
    private func deliver(_ events: [TerminalEvent]) {
        guard !events.isEmpty else { return }
        let receiver = Self.lock.withLock { () -> (@Sendable ([TerminalEvent]) -> Void)? in
            switch inputRoute {
            case .undecided(var held):
                held.append(events)
                inputRoute = .undecided(held)
                return nil
            case .stream:
                continuation.yield(events)
                return nil
            case .receiver(let receiver):
                return receiver
            }
        }
        receiver?(events)
    }

    /// The stream of input; batches read before this (and before any `handInput(to:)`) go into
    /// it first. Lock taken here.
    func inputStream() -> AsyncStream<[TerminalEvent]> {
        Self.lock.withLock {
            if case .undecided(let held) = inputRoute {
                for batch in held { continuation.yield(batch) }
                inputRoute = .stream
            }
            return stream
        }
    }

    /// Input ended: the stream finishes, after any batches held for whoever asks first (so that
    /// `events()` still gives them). Lock taken here.
    func finishInput() {
        Self.lock.withLock {
            if case .undecided(let held) = inputRoute {
                for batch in held { continuation.yield(batch) }
                inputRoute = .stream
            }
        }
        continuation.finish()
    }

    /// Hands each batch read from now on to `receiver` on the input thread; returns the batches
    /// read before, or nil when they already go into the stream. Lock taken here.
    func handInput(to receiver: @escaping @Sendable ([TerminalEvent]) -> Void) -> [[TerminalEvent]]? {
        Self.lock.withLock {
            switch inputRoute {
            case .stream:
                return nil
            case .undecided(let held):
                inputRoute = .receiver(receiver)
                return held
            case .receiver:
                inputRoute = .receiver(receiver)
                return []
            }
        }
    }

    /// Reads every key ncurses can decode now. Input has ended when the
    /// descriptor is readable with nothing to read. Where the byte count cannot be
    /// asked for (FIONREAD fails: /dev/null, a closed descriptor), input has ended when
    /// poll said readable and ncurses read no key: otherwise poll would report the same
    /// readiness at once, forever, and the loop would spin. Lock taken here.
    private func drainInput() -> (events: [TerminalEvent], ended: Bool) {
        Self.lock.withLock {
            guard let screen, !isShutDown else { return ([], false) }
            let ended = terminal.inputHasEnded()
            if ended == true {
                return ([], true)
            }
            set_term(screen)
            let events = readKeysLocked()
            return (events, ended == nil && events.isEmpty)
        }
    }

    /// Drains `wget_wch` until it has nothing more (nodelay mode). Lock held, screen set.
    ///
    /// Between the paste markers (bracketed paste) characters are not keys: they gather in
    /// `pasteText`, across reads, and the end marker makes them one `.paste` event.
    func readKeysLocked() -> [TerminalEvent] {
        let window = baton_stdscr()
        var events: [TerminalEvent] = []
        var reads = 0
        // Bounded so a flood of input cannot hold the lock for long; poll reports the rest.
        while events.count < 4096, reads < 1 << 20 {
            let result = baton_get_wch(window)
            if result.status == ERR { break }
            reads += 1
            if result.status == baton_key_code_yes() {
                let code = Int32(bitPattern: result.value)
                if code == baton_key_resize() {
                    events.append(.resize(currentSizeLocked()))
                } else if code == baton_key_mouse() {
                    let mouse = baton_get_mouse()
                    let action: Mouse.Action? =
                        mouse.state & baton_button_pressed(1) != 0 ? .press
                        : mouse.state & baton_button_pressed(4) != 0 ? .wheelUp
                        : mouse.state & baton_button_pressed(5) != 0 ? .wheelDown : nil
                    if mouse.ok == 1, let action, pasteText == nil {
                        events.append(.mouse(Mouse(action, x: Int(mouse.column), y: Int(mouse.row))))
                    }
                } else if code == baton_key_paste_start() {
                    pasteText = pasteText ?? ""
                } else if code == baton_key_paste_end() {
                    if let text = pasteText { events.append(.paste(text)) }
                    pasteText = nil
                } else if pasteText == nil {
                    events.append(.key(modifiedKeys[code] ?? NCursesKeyDecoder.key(forKeyCode: code)))
                }
                // A key sequence inside a paste (an escape sequence in the pasted text) is dropped.
            } else if pasteText != nil {
                if let scalar = Unicode.Scalar(result.value) { pasteText?.unicodeScalars.append(scalar) }
            } else {
                events.append(.key(NCursesKeyDecoder.key(forCharacter: result.value)))
            }
        }
        return NCursesKeyDecoder.mergingGraphemes(events)
    }

    /// After SIGWINCH: reads the terminal's size with `TIOCGWINSZ` and, when it
    /// changed, tells ncurses with `resizeterm`, which queues `KEY_RESIZE`.
    /// Returns the events that produced, always including one `.resize` when
    /// the size changed. Lock taken here.
    func resizeToTerminalSize() -> [TerminalEvent] {
        Self.lock.withLock {
            guard let screen, !isShutDown else { return [] }
            set_term(screen)
            guard terminal.resizeToWindowLocked() else { return [] }
            var events = readKeysLocked()
            let after = currentSizeLocked()
            // Keep only the final size: one resize event, at the end.
            events.removeAll { if case .resize = $0 { return true } else { return false } }
            events.append(.resize(after))
            return events
        }
    }
}
