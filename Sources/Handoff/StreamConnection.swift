import HandoffWire

/// One byte stream to a source: the seam between the state-stream client and the network.
///
/// `TCPStreamDialer` (in `HandoffMulticast`) makes them over TCP, `InMemoryStreams` (in
/// `HandoffTesting`) in memory. A call waiting in `read` or `write` must return promptly,
/// throwing, when its task is cancelled or the connection is closed: the fetcher races every
/// wait against its clock and cancels the loser.
public protocol StreamConnection: StreamPipe {
    /// Writes all of `bytes`, returning once the connection has taken them.
    func write(_ bytes: [UInt8]) async throws
    /// The next bytes that arrived, as many as are ready (at least one), or nil at the end of the stream.
    func read() async throws -> [UInt8]?
    /// Closes the connection; later reads and writes fail. Closing twice does nothing.
    func close() async
}

/// Opens byte streams to sources.
public protocol StreamDialer: Sendable {
    /// A connection to `host:port`, or a thrown error saying why there is none. Must return
    /// promptly when the task is cancelled.
    func connect(host: String, port: Int) async throws -> any StreamConnection
}
