import CMosquitto
import Foundation

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
            client.shared.withLock { $0.lastError = line }
        }
    }

    static func from(_ object: UnsafeMutableRawPointer?) -> MQTTClient? {
        object.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
    }

    func connected(_ rc: Int32) {
        guard rc == 0 else {
            return changeState(.lost(reason: Self.words(String(cString: mosquitto_connack_string(rc)))))
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
    /// loss was already reported adds nothing.
    func lost(_ rc: Int32, errno saved: Int32) {
        let (already, detail) = shared.withLock { shared -> (Bool, String?) in
            shared.awaitedSubscription = nil
            defer { shared.lastError = nil }
            if case .lost = shared.state { return (true, shared.lastError) }
            return (false, shared.lastError)
        }
        if already, rc == Int32(MOSQ_ERR_NO_CONN.rawValue) { return }
        var reason = rc == 0 ? "disconnected" : Self.reason(rc, errno: saved)
        // OpenSSL's words: "… SSL routines::certificate verify failed".
        if rc == Int32(MOSQ_ERR_TLS.rawValue), let detail, let words = detail.components(separatedBy: "::").last, !words.isEmpty {
            reason += " (\(words))"
        }
        changeState(.lost(reason: reason))
    }

    func received(_ message: Message) {
        shared.withLock { $0.handlers }.message(message)
    }

    func published(_ mid: Int32) {
        shared.withLock { $0.handlers }.published(mid)
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
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
