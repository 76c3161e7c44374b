import FoundationEssentials
import HandoffWire

extension ActivityCenter {
    /// What a UI wants to hear about.
    public enum Event: Sendable, Equatable {
        /// The nearby list changed (an activity came, changed or went).
        case nearbyChanged
        /// A save published this record (or kept it local, when not eligible for handoff).
        case published(ActivityRecord)
        /// A save was refused; the previous published state stays.
        case saveFailed(activityType: String, error: HandoffError)
        /// One of our activities was continued by a peer.
        case continued(activityID: String, by: PeerInfo)
        /// The transport could not send.
        case sendFailed(TransportError)
        /// One of the transport's paths came up or went down (multicast, a relay).
        case transportChanged(TransportStatus)
        /// Datagrams that did not open under the group key — sealed with another key, or
        /// altered on the way — came from these addresses (without port), heard for the first
        /// time. Each address is told once, and `otherKeySources` keeps at most a few in all, so
        /// a flood of such datagrams cannot flood the listeners.
        case otherKeyHeard(sources: [String])
        /// Datagrams of protocol version 1 or 2 came from these addresses (without port), heard for
        /// the first time: Baton there needs updating. Told once per address, at most a few in all.
        case oldProtocolHeard(sources: [String])
        /// Statements heard changed the list of devices, or gave this device a new group key: the
        /// program stores the change (`membership` holds the new picture).
        case membershipChanged(Membership.Change)
    }

    /// A stream of events for one listener; it ends at shutdown. Each event reaches the task
    /// that iterates it through the global executor (on Linux, a thread woken there, and
    /// another if that task runs on an actor).
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.subscribers[id] = nil }
        }
        return stream
    }

    /// Calls `observer` with each event, on the main actor, in the middle of whatever the center
    /// is doing, until shutdown: it should only note the event (or hand it on, with
    /// `DispatchQueue.main.async` to act on it once the center is done) and not call the
    /// center back. No thread is woken for it.
    public func observeEvents(_ observer: @escaping @MainActor (Event) -> Void) {
        guard !isShutDown else { return }
        observers.append(observer)
    }
}
