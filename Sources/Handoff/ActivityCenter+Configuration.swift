import FoundationEssentials
import HandoffWire

extension ActivityCenter {
    /// Timings, limits and identity; the defaults are those of docs/PROTOCOL.md, with Baton's
    /// repeat burst on top.
    public struct Configuration: Sendable {
        public var peer: PeerInfo
        public var senderID: SenderID
        /// At most one save per window while changes keep coming.
        public var saveWindow: Duration = .milliseconds(20)
        /// How often the current ANNOUNCE is repeated.
        public var repeatInterval: Duration = .seconds(1)
        /// How many quick repeats a revision gets once it has stood for `repeatInterval`;
        /// zero keeps to `repeatInterval` alone.
        ///
        /// A save sent once and repeated each second reaches a receiver that loses 30 % of its
        /// datagrams within 2 s only if one of 2 sends arrives: 2.7 % do not, too many for a
        /// p99. With the burst, 9 sends fall within 2 s of the last change (0.002 % all lost)
        /// and 15 within 5 s. A revision replaced within a second (a counter pressed, text
        /// typed) is not repeated at all: only the state that stays needs to arrive.
        public var burstRepeats = 12
        /// How far apart the quick repeats are.
        public var burstInterval: Duration = .milliseconds(125)
        /// A peer's activity is forgotten when not heard for this long.
        public var forgetAfter: Duration = .milliseconds(3500)
        /// The longest random delay before answering a QUERY.
        public var queryAnswerDelay: Duration = .milliseconds(20)
        /// How long after our QUERY answers are gathered before the newest is picked. When none
        /// came by then, the first that comes later opens a second window as long, and the
        /// newest at its end is picked.
        public var queryGatherWindow: Duration = .milliseconds(30)
        /// A find that has heard nothing asks again after this long, then after twice as long
        /// each time (0.1, 0.3, 0.7, 1.5 s … after the first QUERY): on a lossy link the first
        /// QUERY or its answer may be lost, and the next repeat may be a second away.
        public var queryRetryInterval: Duration = .milliseconds(100)
        /// How often the statements kept go out in DEVICES datagrams, besides at start and
        /// after a change (docs/PROTOCOL.md, section 17).
        public var devicesInterval: Duration = .seconds(30)
        /// The least time between two sends of the statements in answer to DEVICES whose
        /// digest differs from ours.
        public var devicesAnswerSpacing: Duration = .seconds(1)
        /// The least time between two wake-ups of the main actor for news of the directory (a
        /// new activity or revision heard, a withdrawal). News that comes sooner after the last
        /// wake-up is queued and taken in one go at the frame's end, so a program that draws what
        /// it hears pays for one wake-up a frame however many peers change. A QUERY, CONTINUED or
        /// DEVICES is taken at once all the same. Zero (the default) takes news at once; an
        /// interactive program wants about a screen frame (`Configuration.screenFrame`), or as long
        /// as it waits between two redraws of what is nearby (`baton`: 250 ms). At most 250 ms
        /// (`ReceiveGate.lazyDelay`, the wait of plain repeats) is taken.
        public var newsFrame: Duration = .zero
        /// How far `sentAt` may be from this clock.
        public var allowedClockSkew: TimeInterval = 60
        public var directoryLimits = PeerDirectory.Limits()
        /// The most UDP payload one datagram may carry. A record whose ANNOUNCE does not fit is
        /// offered by a small OFFER and fetched over the state stream. 1,200 bytes fits one
        /// packet on common links, VPNs and IPv6 paths included.
        public var maximumDatagramSize = Self.defaultMaximumDatagramSize
        /// The largest record Baton hands off or fetches, in bytes of its state encoding.
        public var stateLimit = Self.defaultStateLimit
        /// A save whose state is estimated at this many bytes or more (its strings and data) is
        /// encoded and hashed off the main actor; a smaller one at once, on it.
        public var offMainActorStateSize = 64 * 1024

        /// About one frame of a screen redrawn 30 times a second: a `newsFrame` for programs that
        /// show what they hear.
        public static let screenFrame: Duration = .milliseconds(33)
        public static let defaultMaximumDatagramSize = 1200
        /// 34 MiB: room for 16 MiB of text, which a binary plist stores as UTF-16 (2 bytes even
        /// for ASCII once the text holds any other character), and the rest of the record.
        public static let defaultStateLimit = 34 * 1024 * 1024
        /// The most text `defaultStateLimit` always has room for: 16 MiB of UTF-8.
        public static let defaultTextLimit = 16 * 1024 * 1024

        public init(peer: PeerInfo, senderID: SenderID = .random()) {
            self.peer = peer
            self.senderID = senderID
        }

        /// When the repeat after the one at `elapsed` falls, both counted from a save when
        /// `sinceSave` (else from start-up): at `repeatInterval`, then `burstRepeats - 1` more
        /// every `burstInterval`, then every `repeatInterval`.
        public func `repeat`(after elapsed: Duration, sinceSave: Bool) -> Duration {
            let quick = min(burstInterval, repeatInterval)
            guard sinceSave, burstRepeats > 0, quick > .zero else { return elapsed + repeatInterval }
            if elapsed < repeatInterval { return repeatInterval }
            let burstEnd = repeatInterval + quick * (burstRepeats - 1)
            return elapsed + (elapsed < burstEnd ? quick : repeatInterval)
        }
    }
}
