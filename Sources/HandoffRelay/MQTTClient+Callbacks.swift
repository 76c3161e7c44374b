import CMosquitto
import FoundationEssentials
import Glibc

/// What libmosquitto calls, on the client's network thread, one call at a time.
extension MQTTClient {
    func installCallbacks() {
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
        mosquitto_log_callback_set(handle) { _, object, level, text in
            guard level == MOSQ_LOG_ERR, let text, let client = MQTTClient.from(object) else { return }
            let line = String(cString: text)
            client.shared.withLock { shared in
                if shared.attempt.errors.count == 8 { shared.attempt.errors.removeFirst() }
                shared.attempt.errors.append(line)
            }
        }
    }

    static func from(_ object: UnsafeMutableRawPointer?) -> MQTTClient? {
        object.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
    }

    func connected(_ rc: Int32) {
        let refusal = RelayRefusal.connack(rc, login: configuration.login)
        shared.withLock { shared in
            shared.attempt.answered = true
            shared.attempt.refusal = refusal
            shared.refusal = refusal
        }
        guard rc == 0 else {
            return changeState(.lost(reason: refusal?.description ?? Self.words(String(cString: mosquitto_connack_string(rc)))))
        }
        // Called on libmosquitto's thread, so no SUBACK can be handled before `awaitedSubscription` is set.
        var last: Int32?
        for subscription in shared.withLock({ $0.subscriptions }) {
            var mid: Int32 = 0
            if mosquitto_subscribe(handle, &mid, subscription.topic, subscription.qos) == Self.success { last = mid }
        }
        shared.withLock { shared in
            shared.awaitedSubscription = last
            shared.backoff = Self.firstBackoff
        }
        if last == nil { changeState(.connected) }
    }

    func subscribed(_ mid: Int32) {
        let done = shared.withLock { shared in
            guard shared.awaitedSubscription == mid else { return false }
            shared.awaitedSubscription = nil
            return true
        }
        if done { changeState(.connected) }
    }

    func disconnected(_ rc: Int32, errno saved: Int32) {
        lost(rc, errno: saved)
    }

    /// The connection ended or could not be made: why, in words. A "not connected" after the
    /// loss was already reported adds nothing. Before the broker answered, libmosquitto's error
    /// lines may tell a refused login or certificate from a broker that was not reached.
    func lost(_ rc: Int32, errno saved: Int32) {
        let (already, attempt, waited) = shared.withLock { shared -> (Bool, Attempt, Bool) in
            shared.awaitedSubscription = nil
            // What had not gone will not go on this connection: nothing is left to wait for.
            shared.unsent.removeAll()
            let waited = shared.flushing
            shared.flushing = false
            if case .lost = shared.state { return (true, shared.attempt, waited) }
            return (false, shared.attempt, waited)
        }
        if waited { flushed.signal() }
        if let refusal = attempt.refusal ?? (attempt.answered ? nil : classify(rc, errno: saved, errors: attempt.errors)) {
            shared.withLock { shared in
                shared.attempt.refusal = refusal
                shared.refusal = refusal
            }
            return changeState(.lost(reason: refusal.description))
        }
        // Not refused this time (the broker is away, say): an earlier refusal is no longer the news.
        shared.withLock { $0.refusal = nil }
        if already, rc == Int32(MOSQ_ERR_NO_CONN.rawValue) { return }
        var reason = rc == 0 ? "disconnected" : Self.reason(rc, errno: saved)
        // OpenSSL's words: "… SSL routines::certificate verify failed".
        if rc == Int32(MOSQ_ERR_TLS.rawValue) || rc == Int32(MOSQ_ERR_ERRNO.rawValue),
            let words = attempt.errors.compactMap(RelayRefusal.openSSLWords).last
        {
            reason += " (\(words))"
        }
        changeState(.lost(reason: reason))
    }

    /// A refusal in what a loss before CONNACK left behind, or nil.
    private func classify(_ rc: Int32, errno saved: Int32, errors: [String]) -> RelayRefusal? {
        RelayRefusal.classify(
            errors: errors, tls: configuration.scheme == .mqtts, certificate: configuration.clientCertificate != nil,
            protocolError: rc == Int32(MOSQ_ERR_ERRNO.rawValue) && saved == EPROTO)
    }

    func received(_ message: Message) {
        shared.withLock { $0.handlers }.message(message)
    }

    func published(_ mid: Int32) {
        let (handlers, emptied) = shared.withLock { shared in
            if shared.unsent.remove(mid) == nil {
                shared.sentEarly.insert(mid)
                if shared.sentEarly.count > 4096 { shared.sentEarly.removeAll() }
            }
            let emptied = shared.flushing && shared.unsent.isEmpty
            if emptied { shared.flushing = false }
            return (shared.handlers, emptied)
        }
        if emptied { flushed.signal() }
        handlers.published(mid)
    }

    func changeState(_ state: State) {
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
        var text = text.trimmed(newlines: false)
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
