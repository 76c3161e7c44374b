/// When a program nobody is using gives back the pages of its code: once per quiet spell,
/// `pause` after the last thing it did for someone (a key, a message on a live stream).
///
/// An editor runs a great deal of code to start, to open a file, to save and to serve a
/// follower, and, waiting, very little; the pages of that code stay counted in its resident
/// memory long after (14 MB of a waiting 16 MB editor's 78). Given back, they stay in the page
/// cache, shared with every other process that maps the program, and what the next key runs is
/// mapped again on first use: a few hundred microseconds, once, after a pause of ten seconds.
/// The policy, without I/O: the Program keeps one timer for `deadline` on its clock.
struct QuietPages {
    /// How long nothing must happen before the pages are given back.
    static let pause = Duration.seconds(10)

    /// When the program last did something for someone; nil once the pages were given back
    /// since (nothing is due until it is busy again).
    private(set) var lastBusy: ContinuousClock.Instant?

    /// The program did something for someone at `now`.
    mutating func busy(at now: ContinuousClock.Instant) {
        lastBusy = now
    }

    /// When the pages are due, if they are.
    var deadline: ContinuousClock.Instant? { lastBusy.map { $0 + Self.pause } }

    /// Whether the pages are due at `now`; if so, they count as given back.
    mutating func takeDue(at now: ContinuousClock.Instant) -> Bool {
        guard let deadline, now >= deadline else { return false }
        lastBusy = nil
        return true
    }
}
