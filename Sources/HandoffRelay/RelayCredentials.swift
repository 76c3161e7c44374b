/// A user name, and a password when the broker wants one, sent in MQTT's CONNECT.
///
/// The password never shows in text: `description`, `debugDescription`, string interpolation and
/// `dump` print the user name and `(hidden)`, so a configuration that is logged or printed
/// whole gives nothing away. Only `MQTTClient` reads `password.text`, to hand it to libmosquitto.
public struct RelayLogin: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user name, as the broker knows it.
    public var user: String
    /// The password; nil sends the user name alone (MQTT allows it, few brokers do).
    public var password: RelayPassword?

    public init(user: String, password: RelayPassword? = nil) {
        self.user = user
        self.password = password
    }

    public var description: String { password == nil ? "user \(user)" : "user \(user), password (hidden)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["user": user, "password": password as Any], displayStyle: .struct) }

    /// Why `user` or `password` cannot be sent, or nil: an MQTT string is at most 65,535 bytes
    /// of UTF-8, and libmosquitto takes C strings, which end at the first NUL.
    var problem: RelayConfigurationError? {
        if user.isEmpty { return .emptyUser }
        if user.utf8.count > 65_535 || user.utf8.contains(0) { return .badUser }
        if let password {
            if password.text.isEmpty { return .emptyPassword }
            if password.text.utf8.count > 65_535 || password.text.utf8.contains(0) { return .badPassword }
        }
        return nil
    }
}

/// A password that says `(hidden)` wherever it is printed, logged or dumped.
public struct RelayPassword: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The password itself: for libmosquitto, never for text.
    public let text: String

    public init(_ text: String) { self.text = text }

    public var description: String { "(hidden)" }
    public var debugDescription: String { "(hidden)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// A client certificate and its private key, both PEM files, for brokers that ask each client
/// for a certificate (TLS client authentication, `mqtts://` only). The key must not be
/// encrypted: Baton runs without a terminal to ask for a passphrase.
public struct RelayClientCertificate: Equatable, Sendable, CustomStringConvertible {
    public var certificateFile: String
    public var keyFile: String

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    public var description: String { "certificate \(certificateFile), key \(keyFile)" }
}
