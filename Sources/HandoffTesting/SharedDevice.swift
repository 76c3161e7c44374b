import Handoff
import HandoffWire

extension Membership {
    /// The membership of the one device every holder of `groupKey` is, for tests: every center
    /// made with it hears every other (each is still a sender of its own), and an in-memory
    /// stream server serving as that device (`InMemoryStreams.serve(…identity:trust:…)` with
    /// `streamIdentity(senderID:)` and `streamTrust`) serves them.
    public static func sharedDevice(of groupKey: GroupKey, name: String = "test device") -> Membership {
        Membership(identity: StreamIdentity.sharedByGroupKey(groupKey).device, groupKey: groupKey, name: name)
    }
}
