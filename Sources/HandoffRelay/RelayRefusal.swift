import FoundationEssentials

/// Why a broker that was reached would not take this client: its login or its certificate, or a
/// certificate on either side that TLS could not use. Told apart from a broker that cannot be
/// reached, because each has its own fix; `baton doctor` says which.
public enum RelayRefusal: Equatable, Sendable, CustomStringConvertible {
    /// The broker answered CONNECT with "bad user name or password" or "not authorised", to the
    /// user name and password given.
    case login
    /// The same answer to a client that gave no user name: the broker refuses anonymous clients.
    case loginRequired
    /// The broker ended the TLS handshake because no client certificate was given.
    case certificateRequired
    /// The broker ended the TLS handshake over the client certificate given (signed by a CA it
    /// does not trust, expired, revoked): OpenSSL's words, or what was seen.
    case certificate(String)
    /// This side could not use its own certificate or key (not PEM, encrypted, not each other's).
    case clientFiles(String)
    /// This side does not trust the broker's certificate (no CA given vouches for it).
    case untrustedBroker(String)

    /// Words for the relay path's reason: `relay unavailable (the broker refused …)`.
    public var description: String {
        switch self {
        case .login: "the broker refused the user name or password"
        case .loginRequired: "the broker refuses clients without a user name and password"
        case .certificateRequired: "the broker asks for a client certificate"
        case .certificate(let detail): "the broker refused the client certificate (\(detail))"
        case .clientFiles(let detail): "the client certificate or its key cannot be used (\(detail))"
        case .untrustedBroker(let detail): "a TLS error occurred (\(detail))"
        }
    }

    /// CONNACK return codes 4 (bad user name or password) and 5 (not authorised), MQTT 3.1.1 §3.2.2.3.
    static func connack(_ code: Int32, login: RelayLogin?) -> RelayRefusal? {
        guard code == 4 || code == 5 else { return nil }
        return login == nil ? .loginRequired : .login
    }

    /// What the error lines libmosquitto logged since the last loss say, for a loss before the
    /// broker answered CONNECT. `tls` and `certificate`: what this client was set up with;
    /// `protocolError`: the connection ended with EPROTO (how a TLS alert that libmosquitto
    /// does not log looks from here).
    static func classify(errors: [String], tls: Bool, certificate: Bool, protocolError: Bool) -> RelayRefusal? {
        guard tls else { return nil }
        let detail = errors.compactMap(openSSLWords).last
        let all = errors.joined(separator: "\n").lowercased()
        if all.contains("unable to load client") || all.contains("certificate/key are inconsistent") {
            let first = errors.first { $0.hasPrefix("Error") }.map(words)
            return .clientFiles([first, detail].compactMap { $0 }.joined(separator: ": "))
        }
        if all.contains("certificate verify failed") { return .untrustedBroker(detail ?? "certificate verify failed") }
        if all.contains("alert certificate required") { return .certificateRequired }
        let refusals = [
            "alert unknown ca", "alert bad certificate", "alert certificate expired", "alert certificate revoked",
            "alert certificate unknown", "alert unsupported certificate", "alert access denied", "alert handshake failure",
        ]
        if refusals.contains(where: all.contains) {
            return certificate ? .certificate(detail ?? "a TLS alert") : .certificateRequired
        }
        if protocolError, certificate, errors.isEmpty {
            return .certificate("the broker closed the connection during the TLS handshake")
        }
        return nil
    }

    /// "tlsv1 alert unknown ca" from "OpenSSL Error[0]: error:0A000418:SSL routines::tlsv1 alert unknown ca".
    static func openSSLWords(_ line: String) -> String? {
        guard line.contains("OpenSSL"), let words = line.components(separatedBy: "::").last, !words.isEmpty,
            words != line
        else { return nil }
        return words.trimmed(newlines: false)
    }

    /// `Error: Unable to load client key file "k.pem".` as `unable to load client key file "k.pem"`.
    private static func words(_ line: String) -> String {
        MQTTClient.words(line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line)
    }
}
