import FoundationEssentials

/// How far a fetch of a large activity has come, reported while `continueActivity` runs.
public struct TransferProgress: Equatable, Sendable {
    public var activityID: String
    /// The source's `peer.name`, as offered (sanitize before showing it).
    public var peerName: String
    /// Bytes held so far, verified frame by frame.
    public var received: Int
    /// Bytes in all.
    public var total: Int
    /// Time since the fetch began.
    public var elapsed: Duration
    /// How many times a dropped connection was resumed.
    public var resumes: Int

    public init(activityID: String, peerName: String, received: Int, total: Int, elapsed: Duration, resumes: Int = 0) {
        self.activityID = activityID
        self.peerName = peerName
        self.received = received
        self.total = total
        self.elapsed = elapsed
        self.resumes = resumes
    }

    /// 0…1.
    public var fraction: Double { total > 0 ? min(1, Double(received) / Double(total)) : 1 }

    /// Average rate since the fetch began, in bytes per second (0 before any time has passed).
    public var bytesPerSecond: Double {
        let seconds = elapsed.seconds
        return seconds > 0 ? Double(received) / seconds : 0
    }
}

extension NearbyActivity {
    /// The size of the record in bytes when it must be fetched over the state stream, nil when
    /// the ANNOUNCE carried it whole.
    public var stateSize: Int? { offer?.size }
}
