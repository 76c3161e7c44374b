import CMosquitto
import FoundationEssentials
import Glibc
import Dispatch
import Handoff
import HandoffWire
import Synchronization

/// libmosquitto is set up once per process, before the first client, after OpenSSL (which it
/// initialises too) is set up without its exit handler.
private let libraryReady: Bool = OpenSSLProcess.prepared && mosquitto_lib_init() == MQTTClient.success

/// A thin MQTT client over libmosquitto, for the relay.
///
/// The connection runs on a thread of its own, which drives `mosquitto_loop`: it connects in
/// the background (`mosquitto_connect_async`), keeps the connection alive with pings, and
/// reconnects after any loss 0.5 s later, doubling the wait up to 4 s while the broker stays
/// away. (libmosquitto's own thread, `mosquitto_loop_start`, counts its delays in whole seconds
/// and ends for good at a TLS or protocol error without a callback; this thread retries every
/// error and reports it.) libmosquitto calls back on that thread: the callbacks are C functions
/// that find this object through libmosquitto's user-data pointer, written outside any actor.
/// Publishing and subscribing may be called from any thread.
///
/// Subscriptions made with `addSubscription` are made again after every reconnect (the
/// session is clean: the broker keeps nothing of a client between connections).
public final class MQTTClient: Sendable {
    /// The connection as the callbacks last reported it.
    public enum State: Equatable, Sendable {
        case connecting
        case connected
        /// Not connected, with why in words; libmosquitto keeps trying to connect.
        case lost(reason: String)
        /// `stop()` was called.
        case stopped
    }

    /// One message as it arrived.
    public struct Message: Sendable {
        public var topic: String
        public var payload: [UInt8]
        /// Sent by the broker because it kept it (a subscriber that came later), not live.
        public var retained: Bool
    }

    /// What the broker publishes for this client when the connection ends without a DISCONNECT.
    public struct Will: Sendable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int32
        public var retain: Bool

        public init(topic: String, payload: [UInt8], qos: Int32, retain: Bool) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    /// What the client calls back, all on libmosquitto's thread, one call at a time.
    public struct Handlers: Sendable {
        public var stateChanged: @Sendable (State) -> Void
        public var message: @Sendable (Message) -> Void
        /// A message left (QoS 0) or the broker acknowledged it (QoS 1): its message id.
        public var published: @Sendable (Int32) -> Void

        public init(
            stateChanged: @escaping @Sendable (State) -> Void = { _ in },
            message: @escaping @Sendable (Message) -> Void = { _ in },
            published: @escaping @Sendable (Int32) -> Void = { _ in }
        ) {
            self.stateChanged = stateChanged
            self.message = message
            self.published = published
        }
    }

    struct Shared {
        var handlers = Handlers()
        var state = State.connecting
        var subscriptions: [(topic: String, qos: Int32)] = []
        /// The message id of the last subscription made on connecting: its SUBACK means the
        /// client hears what it subscribed to, and only then is it `connected`.
        var awaitedSubscription: Int32?
        /// What the current connection attempt has met so far.
        var attempt = Attempt()
        /// Why the broker or TLS refused the last attempt; nil once a connection is made.
        var refusal: RelayRefusal?
        var started = false
        var stopping = false
        /// The wait before the next reconnect; back to the first after a connection is made.
        var backoff = MQTTClient.firstBackoff
        /// Messages handed to libmosquitto and not yet gone: written (QoS 0) or acknowledged
        /// (QoS 1). libmosquitto keeps QoS 1 messages past its in-flight limit in a queue of its
        /// own, which a DISCONNECT does not wait for: `stop` waits for these first.
        var unsent: Set<Int32> = []
        /// Message ids whose callback came before `publish` had returned them.
        var sentEarly: Set<Int32> = []
        /// Whether `stop` waits for `unsent` to empty.
        var flushing = false
    }

    /// One connection attempt, from CONNECT until it is lost.
    struct Attempt {
        /// The broker answered CONNECT (CONNACK), whatever it said.
        var answered = false
        /// Why this attempt was refused, once known: kept for every later report of its loss.
        var refusal: RelayRefusal?
        /// libmosquitto's error lines (OpenSSL's reasons for a TLS failure), a few at most.
        var errors: [String] = []
    }

    static let firstBackoff = 0.5
    static let longestBackoff = 4.0
    /// The wait after a refused login or certificate: trying the same again every few seconds
    /// would not help, and some hosted brokers shut out a client that keeps failing.
    static let refusedBackoff = 30.0

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)

    public let configuration: RelayConfiguration
    /// libmosquitto's client, in threaded mode: its calls may come from any thread.
    nonisolated(unsafe) let handle: OpaquePointer
    let shared = Mutex(Shared())
    /// Cuts a reconnect wait short when the client stops.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the network thread ended.
    private let finished = DispatchSemaphore(value: 0)
    /// Signalled when the last unsent message went while `stop` waits.
    let flushed = DispatchSemaphore(value: 0)

    /// A client for the broker in `configuration`, not yet connected. Throws when libmosquitto
    /// cannot be set up or refuses the TLS settings (a CA file, certificate or key it cannot read).
    public init(configuration: RelayConfiguration, will: Will? = nil) throws(RelayError) {
        guard libraryReady else { throw .library("libmosquitto could not be initialised") }
        guard let handle = mosquitto_new(nil, true, nil) else { throw .library("libmosquitto could not create a client") }
        self.configuration = configuration
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        _ = mosquitto_max_inflight_messages_set(handle, 64)
        _ = mosquitto_threaded_set(handle, true)
        try configureCredentials()
        if let will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos, will.retain)
            }
            guard rc == Self.success else {
                throw .library("libmosquitto refused the last will: \(Self.reason(rc))")
            }
        }
        installCallbacks()
    }

    /// Also runs when `init` throws after `handle` was set: the one place the client is destroyed.
    deinit {
        mosquitto_destroy(handle)
    }

    public var state: State { shared.withLock { $0.state } }

    public var isConnected: Bool { state == .connected }

    /// Why the broker, or TLS, refused the last attempt to connect (a login, a certificate);
    /// nil while connected, and when the broker was not reached at all.
    public var refusal: RelayRefusal? { shared.withLock { $0.refusal } }

    /// Starts connecting in the background and calls `handlers` from now on. Returns at once:
    /// a broker that cannot be reached is reported through `stateChanged`, and retried. The
    /// client is `connected` once the broker acknowledged its subscriptions.
    public func start(_ handlers: Handlers) {
        shared.withLock {
            $0.handlers = handlers
            $0.started = true
        }
        handlers.stateChanged(.connecting)
        // The thread keeps this client alive until `stop()` ends it.
        BackgroundWork.startThread { [self] in run() }
    }

    /// The network thread: connects, runs libmosquitto's loop while connected, and after any
    /// loss or failure waits and connects again, until `stop()`.
    private func run() {
        defer { finished.signal() }
        let keepalive = Int32(max(5, configuration.keepalive))
        shared.withLock { $0.attempt = Attempt() }
        var rc = mosquitto_connect_async(handle, configuration.host, Int32(configuration.port), keepalive)
        while true {
            if rc == Self.success {
                rc = mosquitto_loop(handle, 250, 1)
                if rc == Self.success { continue }
            }
            let saved = errno
            if shared.withLock({ $0.stopping }) { return }
            lost(rc, errno: saved)
            let delay = shared.withLock { shared in
                defer { shared.backoff = min(shared.backoff * 2, Self.longestBackoff) }
                return shared.attempt.refusal == nil ? shared.backoff : Self.refusedBackoff
            }
            _ = wake.wait(timeout: .now() + delay)
            if shared.withLock({ $0.stopping }) { return }
            shared.withLock { $0.attempt = Attempt() }
            rc = mosquitto_reconnect_async(handle)
        }
    }

    /// Subscribes to `topic` now (if connected) and after every reconnect.
    public func addSubscription(_ topic: String, qos: Int32) {
        shared.withLock { $0.subscriptions.append((topic, qos)) }
        _ = mosquitto_subscribe(handle, nil, topic, qos)
    }

    /// Subscribes to `topic` for this connection only; a reconnect forgets it.
    @discardableResult
    public func subscribe(_ topic: String, qos: Int32) -> Bool {
        mosquitto_subscribe(handle, nil, topic, qos) == Self.success
    }

    public func unsubscribe(_ topic: String) {
        _ = mosquitto_unsubscribe(handle, nil, topic)
    }

    /// Hands one message to libmosquitto; its message id, or why it was not taken.
    @discardableResult
    public func publish(_ topic: String, _ payload: some ContiguousBytes, qos: Int32, retain: Bool = false)
        -> Result<Int32, RelayError>
    {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.count == 0 ? nil : bytes.baseAddress, qos, retain)
        }
        guard rc == Self.success else { return .failure(.publish(Self.reason(rc, errno: errno))) }
        shared.withLock { shared in
            if shared.sentEarly.remove(mid) == nil { shared.unsent.insert(mid) }
        }
        return .success(mid)
    }

    /// Disconnects cleanly (the broker then discards the will: what was published before goes
    /// out first) and ends the network thread. Blocks until the thread ended, at most 2 s; call
    /// it once, not from a callback.
    public func stop() {
        // What was handed over goes out before the DISCONNECT (an exit status, a stream's end),
        // for at most 2 s: a broker that stopped answering does not hold the program. The
        // network thread goes on reading the acknowledgements meanwhile.
        let (started, waits) = shared.withLock { shared in
            shared.flushing = shared.started && !shared.unsent.isEmpty && shared.state == .connected
            shared.state = .stopped
            shared.stopping = true
            return (shared.started, shared.flushing)
        }
        guard started else { return }
        if waits { _ = flushed.wait(timeout: .now() + 2) }
        _ = mosquitto_disconnect(handle)
        wake.signal()
        _ = finished.wait(timeout: .now() + 2)
    }

    /// Ends the connection under libmosquitto without a DISCONNECT, as a crash or a cut cable
    /// would: the broker publishes the will. For tests.
    func cutConnectionForTesting() {
        let socket = mosquitto_socket(handle)
        if socket >= 0 { _ = shutdown(socket, Int32(SHUT_RDWR)) }
    }
}

/// Why the relay could not be set up or used.
public enum RelayError: Error, Equatable, Sendable, CustomStringConvertible {
    case library(String)
    case tls(String)
    case publish(String)

    public var description: String {
        switch self {
        case .library(let reason): "The relay cannot start: \(reason)."
        case .tls(let reason): "The relay cannot use TLS: \(reason)."
        case .publish(let reason): "The relay did not take a message: \(reason)."
        }
    }
}
