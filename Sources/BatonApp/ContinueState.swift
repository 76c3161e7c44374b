import Handoff

/// A continue under way: what is being continued, from whom, and how far the fetch has come.
///
/// It is an overlay from the moment the continue is asked for, so it takes the keys at once;
/// it is drawn only once the continue has taken longer than `BatonApp.continueOverlayDelay`
/// (a small record arrives well before anyone could read a progress bar).
public struct ContinueState: Equatable, Sendable {
    /// The activity's ID.
    public var id: String
    /// What is being continued, e.g. "Editing big.log".
    public var title: String
    /// Who offers it, as the nearby list showed it.
    public var peerName: String
    /// The size of the record when it is fetched over the state stream, as the offer said.
    public var stateSize: Int?
    /// The newest progress report, nil before the first.
    public var progress: TransferProgress?
    /// How long the continue has run, as of the newest message about it.
    public var elapsed: Duration

    /// A continue that has just been asked for.
    public init(id: String, title: String, peerName: String, stateSize: Int? = nil) {
        self.id = id
        self.title = title
        self.peerName = peerName
        self.stateSize = stateSize
        self.progress = nil
        self.elapsed = .zero
    }

    /// Whether the progress overlay is drawn.
    public var isShown: Bool { elapsed >= BatonApp.continueOverlayDelay }

    /// Bytes received and in all, when known.
    var amounts: (received: Int, total: Int)? {
        if let progress { return (progress.received, progress.total) }
        return stateSize.map { (0, $0) }
    }
}
