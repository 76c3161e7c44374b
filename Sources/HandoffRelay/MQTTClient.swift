import CMosquitto
import Foundation
import Synchronization

/// libmosquitto is set up once per process, before the first client.
private let libraryReady: Bool = mosquitto_lib_init() == MQTTClient.success

/// A thin MQTT client over libmosquitto, for the relay.
///
/// libmosquitto runs the connection on a thread of its own (`mosquitto_loop_start`): it
/// connects in the background, reconnects after a loss (1 s, then every 2 s: libmosquitto
/// counts its delays in whole seconds), keeps the connection alive with pings, and calls back
/// on that thread. The callbacks are C functions that find this object through libmosquitto's
/// user-data pointer; they are written outside any actor, as libmosquitto calls them from its
/// own thread. Publishing and subscribing may be called from any thread.
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

    private struct Shared {
        var handlers = Handlers()
        var state = State.connecting
        var subscriptions: [(topic: String, qos: Int32)] = []
        /// The message id of the last subscription made on connecting: its SUBACK means the
        /// client hears what it subscribed to, and only then is it `connected`.
        var awaitedSubscription: Int32?
        var started = false
    }

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)

    public let configuration: RelayConfiguration
    /// libmosquitto's client; thread-safe once its loop thread runs (threaded mode).
    private nonisolated(unsafe) let handle: OpaquePointer
    private let shared = Mutex(Shared())

    /// A client for the broker in `configuration`, not yet connected. Throws when libmosquitto
    /// cannot be set up or refuses the TLS settings (a CA file it cannot read).
    public init(configuration: RelayConfiguration, will: Will? = nil) throws(RelayError) {
        guard libraryReady else { throw .library("libmosquitto could not be initialised") }
        guard let handle = mosquitto_new(nil, true, nil) else { throw .library("libmosquitto could not create a client") }
        self.configuration = configuration
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        _ = mosquitto_max_inflight_messages_set(handle, 64)
        _ = mosquitto_reconnect_delay_set(handle, 1, 2, false)
        if configuration.scheme == .mqtts {
            let rc: Int32
            if let caFile = configuration.caFile {
                rc = mosquitto_tls_set(handle, caFile, nil, nil, nil, nil)
            } else {
                rc = mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
            }
            guard rc == Self.success else {
                mosquitto_destroy(handle)
                throw .tls(configuration.caFile.map { "cannot use \($0) as the relay's CA file (--relay-ca): \(Self.reason(rc))" }
                    ?? "cannot use the system's trusted certificates: \(Self.reason(rc))")
            }
        }
        if let will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos, will.retain)
            }
            guard rc == Self.success else {
                mosquitto_destroy(handle)
                throw .library("libmosquitto refused the last will: \(Self.reason(rc))")
            }
        }
        installCallbacks()
    }

    deinit {
        if shared.withLock({ $0.started }) { _ = mosquitto_loop_stop(handle, true) }
        mosquitto_destroy(handle)
    }

    public var state: State { shared.withLock { $0.state } }

    public var isConnected: Bool { state == .connected }

    /// Starts connecting in the background and calls `handlers` from now on. Returns at once:
    /// a broker that cannot be reached is reported through `stateChanged`, and retried. The
    /// client is `connected` once the broker acknowledged its subscriptions.
    public func start(_ handlers: Handlers) {
        shared.withLock {
            $0.handlers = handlers
            $0.started = true
        }
        handlers.stateChanged(.connecting)
        let rc = mosquitto_connect_async(handle, configuration.host, Int32(configuration.port), Int32(max(5, configuration.keepalive)))
        if rc != Self.success { changeState(.lost(reason: Self.reason(rc, errno: errno))) }
        let loop = mosquitto_loop_start(handle)
        if loop != Self.success { changeState(.lost(reason: "its network thread did not start: \(Self.reason(loop))")) }
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
        return rc == Self.success ? .success(mid) : .failure(.publish(Self.reason(rc, errno: errno)))
    }

    /// Disconnects cleanly (the broker then discards the will) and ends the network thread.
    /// Blocks until the thread ended; call it once, not from a callback.
    public func stop() {
        let started = shared.withLock { shared in
            shared.state = .stopped
            defer { shared.started = false }
            return shared.started
        }
        guard started else { return }
        _ = mosquitto_disconnect(handle)
        _ = mosquitto_loop_stop(handle, false)
    }

    /// Ends the connection under libmosquitto without a DISCONNECT, as a crash or a cut cable
    /// would: the broker publishes the will. For tests.
    func cutConnectionForTesting() {
        let socket = mosquitto_socket(handle)
        if socket >= 0 { _ = shutdown(socket, Int32(SHUT_RDWR)) }
    }

    // MARK: - Callbacks, on libmosquitto's thread

    private func installCallbacks() {
        mosquitto_connect_callback_set(handle) { _, object, rc in MQTTClient.from(object)?.connected(rc) }
        mosquitto_disconnect_callback_set(handle) { _, object, rc in
            let saved = errno
            MQTTClient.from(object)?.disconnected(rc, errno: saved)
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            guard let client = MQTTClient.from(object), let message, let topic = message.pointee.topic else { return }
            let length = Int(max(0, message.pointee.payloadlen))
            let payload =
                length == 0 || message.pointee.payload == nil
                ? [] : Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: length))
            client.received(Message(topic: String(cString: topic), payload: payload, retained: message.pointee.retain))
        }
        mosquitto_publish_callback_set(handle) { _, object, mid in MQTTClient.from(object)?.published(mid) }
        mosquitto_subscribe_callback_set(handle) { _, object, mid, _, _ in MQTTClient.from(object)?.subscribed(mid) }
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTClient? {
        object.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
    }

    private func connected(_ rc: Int32) {
        guard rc == 0 else {
            return changeState(.lost(reason: Self.words(String(cString: mosquitto_connack_string(rc)))))
        }
        // Called on libmosquitto's thread, so no SUBACK can be handled before `awaitedSubscription` is set.
        var last: Int32?
        for subscription in shared.withLock({ $0.subscriptions }) {
            var mid: Int32 = 0
            if mosquitto_subscribe(handle, &mid, subscription.topic, subscription.qos) == Self.success { last = mid }
        }
        shared.withLock { $0.awaitedSubscription = last }
        if last == nil { changeState(.connected) }
    }

    private func subscribed(_ mid: Int32) {
        let done = shared.withLock { shared in
            guard shared.awaitedSubscription == mid else { return false }
            shared.awaitedSubscription = nil
            return true
        }
        if done { changeState(.connected) }
    }

    private func disconnected(_ rc: Int32, errno saved: Int32) {
        shared.withLock { $0.awaitedSubscription = nil }
        changeState(.lost(reason: rc == 0 ? "disconnected" : Self.reason(rc, errno: saved)))
    }

    private func received(_ message: Message) {
        shared.withLock { $0.handlers }.message(message)
    }

    private func published(_ mid: Int32) {
        shared.withLock { $0.handlers }.published(mid)
    }

    private func changeState(_ state: State) {
        let handlers: Handlers? = shared.withLock { shared in
            guard shared.state != .stopped, shared.state != state else { return nil }
            shared.state = state
            return shared.handlers
        }
        handlers?.stateChanged(state)
    }

    /// libmosquitto's words for `rc`, or the system's for an errno.
    static func reason(_ rc: Int32, errno saved: Int32 = 0) -> String {
        if rc == Int32(MOSQ_ERR_ERRNO.rawValue), saved != 0 { return words(String(cString: strerror(saved))) }
        return words(String(cString: mosquitto_strerror(rc)))
    }

    /// "The connection was lost." as "the connection was lost", to sit inside a sentence.
    static func words(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
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
