import FoundationEssentials
import HandoffWire
import HandoffRelay

/// What `baton doctor` says of the relay: how it connected, or why not and what to do, with a
/// refused login and a refused certificate each told apart from a broker that cannot be reached.
extension RelayCheck {
    /// The finding for `outcome` against `configuration`.
    package static func finding(_ outcome: Outcome, configuration: RelayConfiguration) -> DoctorFinding {
        let url = configuration.url
        let tls = configuration.scheme == .mqtts
            ? " over TLS" + (configuration.caFile.map { " (CA \($0))" } ?? " (the system's CAs)") : ""
        switch outcome {
        case .passed(let connect, let roundTrip):
            let detail = "\(url) connected\(tls)\(identity(configuration)) in \(milliseconds(connect)) ms; "
                + "a datagram went through it in \(milliseconds(roundTrip)) ms"
            if configuration.scheme == .mqtt, configuration.login?.password != nil {
                return DoctorFinding(
                    name: name, status: .warning, detail: detail + ", but the password crossed the network unencrypted",
                    fix: "use TLS, mqtts://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host) "
                        + "(port 8883 unless the broker says otherwise), so that the password and the broker's identity are protected")
            }
            return DoctorFinding(name: name, status: .ok, detail: detail)
        case .lost(let connect, let seconds):
            return DoctorFinding(
                name: name, status: .problem,
                detail: "\(url) connected\(tls) in \(milliseconds(connect)) ms, but a datagram sent through it did not come back within \(trimmed(seconds)) s",
                fix: "the broker refuses Baton's topics or drops its messages: allow publishing and subscribing under `baton/#` (mosquitto: an `acl_file`)")
        case .unreachable(let reason, let seconds):
            let why = reason.map { ": \($0)" } ?? ""
            let fix: String
            if configuration.scheme == .mqtt {
                fix = "check that the broker runs and listens beyond localhost (mosquitto 2: `listener \(configuration.port) 0.0.0.0`), "
                    + "and that TCP \(configuration.port) is open on the way"
            } else {
                fix = "check that the broker runs with TLS on port \(configuration.port) and that TCP \(configuration.port) is open on the way"
            }
            return DoctorFinding(
                name: name, status: .problem, detail: "could not connect to \(url) within \(trimmed(seconds)) s\(why)", fix: fix)
        case .refused(let refusal):
            return DoctorFinding(
                name: name, status: .problem, detail: "\(url)\(tls): \(refusal)\(given(configuration))",
                fix: fix(refusal, configuration: configuration))
        case .failed(let message):
            return DoctorFinding(
                name: name, status: .problem, detail: message,
                fix: "check --relay, --relay-ca, --relay-cert and --relay-cert-key (`baton config` shows where each comes from)")
        }
    }

    /// What to do about `refusal`, in the options that set what was refused.
    static func fix(_ refusal: RelayRefusal, configuration: RelayConfiguration) -> String {
        switch refusal {
        case .login:
            "check the user name and the password the broker expects (`baton config` shows where each comes from: "
                + "--relay-user or BATON_RELAY_USER, BATON_RELAY_PASSWORD or the password file); on mosquitto, "
                + "set them with `mosquitto_passwd` in its password_file and restart it"
        case .loginRequired:
            "give the name the broker knows you by with --relay-user NAME (or BATON_RELAY_USER, or `user NAME` in "
                + "~/.config/baton/relay), and its password in BATON_RELAY_PASSWORD or in a file only you can read "
                + "(chmod 600) named by --relay-password-file"
        case .certificateRequired:
            "give the certificate the broker's CA issued for you and its key: --relay-cert FILE --relay-cert-key FILE "
                + "(or BATON_RELAY_CERT and BATON_RELAY_CERT_KEY, or `cert` and `cert-key` in ~/.config/baton/relay)"
        case .certificate:
            "the broker does not accept \(configuration.clientCertificate.map(\.certificateFile) ?? "the certificate"): use "
                + "one issued by a CA the broker trusts (mosquitto: its `cafile`), not expired or revoked, named by --relay-cert"
        case .clientFiles:
            "--relay-cert and --relay-cert-key must name a PEM certificate and its own key, the key without a passphrase "
                + "(`openssl pkey -in KEY -out PLAIN` removes one; keep PLAIN readable only by you)"
        case .untrustedBroker:
            "the broker's certificate is not trusted: give its CA with `--relay-ca FILE`, or check the host name in \(configuration.url)"
        }
    }

    /// ` (user alice, client certificate c.pem)`, or nothing for an anonymous client.
    static func given(_ configuration: RelayConfiguration) -> String {
        var parts: [String] = []
        if let login = configuration.login { parts.append("user \(login.user)") }
        if let client = configuration.clientCertificate { parts.append("client certificate \(client.certificateFile)") }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }

    /// ` as alice with the client certificate c.pem`, or nothing for an anonymous client.
    static func identity(_ configuration: RelayConfiguration) -> String {
        var parts: [String] = []
        if let login = configuration.login { parts.append(" as \(login.user)") }
        if let client = configuration.clientCertificate { parts.append(" with the client certificate \(client.certificateFile)") }
        return parts.joined()
    }

    /// `12` ms, or `0.4` ms below 10 ms.
    static func milliseconds(_ seconds: Double) -> String {
        let ms = seconds * 1000
        return ms < 10 ? PlainText.oneDecimal(ms) : String(Int(ms.rounded()))
    }

    static func trimmed(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
