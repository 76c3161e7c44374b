import BatonShell
import Synchronization

/// Where a terminal's input goes while it shows a shell session: to the viewer attached, or,
/// while none is (the link is being opened again), q or Ctrl-C to leave. Told from the input
/// thread. What is typed before the first viewer is attached (the input thread reads what was
/// typed ahead as soon as the display opens) is kept and handed to it first, in order.
public final class ShellInputRouter: Sendable {
    public typealias Delivery = @Sendable (ShellViewerEvent) -> Void

    private struct State {
        var deliver: Delivery?
        var waiter: CheckedContinuation<Bool, Never>?
        var leaving = false
        /// Input before the first viewer; nil once one came.
        var early: [ShellViewerEvent]? = []
    }
    private let state = Mutex(State())

    public init() {}

    /// From now on, input goes to `deliver` (a viewer's `deliver`); what waited for the first
    /// viewer goes first. Handed over under the lock: input read meanwhile waits, and comes after.
    public func attach(_ deliver: @escaping Delivery) {
        state.withLock { state in
            state.deliver = deliver
            guard let early = state.early else { return }
            state.early = nil
            for event in early { deliver(event) }
        }
    }

    /// The viewer left: input is q to leave, until the next is attached.
    public func detach() {
        state.withLock { $0.deliver = nil }
    }

    /// What the user did at the terminal.
    public func handle(_ event: ShellViewerEvent) {
        enum Route { case kept, viewer(Delivery), none }
        let route = state.withLock { state -> Route in
            if let deliver = state.deliver { return .viewer(deliver) }
            if state.early != nil {
                state.early?.append(event)
                return .kept
            }
            return .none
        }
        switch route {
        case .viewer(let deliver): deliver(event)
        case .kept: break
        case .none:
            if event == .input(.text("q", modifiers: [])) || event == .input(.text("c", modifiers: .control)) { leave() }
        }
    }

    /// Waits `seconds`; true when the user asked to leave meanwhile.
    public func waitOrLeave(seconds: Int) async -> Bool {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            self?.wake(false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let left = state.withLock { state -> Bool in
                if state.leaving { return true }
                state.waiter = continuation
                return false
            }
            if left { continuation.resume(returning: true) }
        }
    }

    private func leave() {
        state.withLock { $0.leaving = true }
        wake(true)
    }

    private func wake(_ left: Bool) {
        state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
        }?.resume(returning: left)
    }
}
