import FoundationEssentials

/// When the main actor is asked to take what the receive gate queued (docs/ARCHITECTURE.md,
/// "How a datagram travels"): news at once, or at the end of the news frame when it comes
/// less than a frame after the last intake; plain repeats and what is only counted lazily,
/// within `lazyDelay`. One wake-up on its way serves everything queued until the intake, so
/// each asks for one only when none that comes as soon is on its way.
struct WakePolicy: Sendable {
    /// How to get the queue taken.
    enum Wake: Equatable, Sendable {
        /// Ask the main actor now.
        case now
        /// Ask the main actor after `lazyDelay`.
        case soon
        /// Take the queue at this time (the end of the news frame), without waking the main
        /// actor before.
        case at(Date)
    }

    /// How long queued repeats, and what was only counted, may wait for the main actor.
    static let lazyDelay: Duration = .milliseconds(250)

    /// `Configuration.newsFrame`, in seconds, at most `lazyDelay`; 0 hands news on at once.
    let frame: TimeInterval
    /// News may wait for the frame's end (false while the center waits for answers).
    var holdsNews = true
    private var urgentAsked = false
    private var lazyAsked = false
    private var frameAsked = false
    /// When the queue was last taken.
    private var lastTake: Date?

    init(frame: TimeInterval) {
        // No longer than the lazy wake-up of repeats, which the frame's wake-up then serves.
        self.frame = min(max(0, frame), Self.lazyDelay.seconds)
    }

    /// Something that changes the picture was queued: news of the directory (`news`), or a
    /// message answered at once. Nil when a wake-up that serves is on its way.
    mutating func urgent(now: Date, news: Bool) -> Wake? {
        guard !urgentAsked else { return nil }
        if news, frame > 0, holdsNews, let last = lastTake, now.timeIntervalSince(last) < frame {
            guard !frameAsked else { return nil }
            frameAsked = true
            return .at(last.addingTimeInterval(frame))
        }
        urgentAsked = true
        return .now
    }

    /// Something that may wait was queued; nil when a wake-up that comes no later is on its way.
    mutating func lazy() -> Wake? {
        guard !urgentAsked, !lazyAsked, !frameAsked else { return nil }
        lazyAsked = true
        return .soon
    }

    /// The queue was taken at `now`: later arrivals ask again, and a news frame starts.
    mutating func taken(at now: Date) {
        urgentAsked = false
        lazyAsked = false
        frameAsked = false
        lastTake = now
    }
}
