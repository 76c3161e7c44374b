import FoundationEssentials

/// Where the relay is: an MQTT broker given as `mqtt://HOST[:PORT]` (port 1883 by default) or
/// `mqtts://HOST[:PORT]` (TLS, port 8883 by default), with an optional CA file for `mqtts`
/// (`--relay-ca FILE`; without one the system's trusted certificates are used), and how Baton
/// proves who it is to a broker that refuses anonymous clients: a user name and password, a
/// client certificate (`mqtts` only), or both.
///
/// docs/PROTOCOL.md section 16. Nothing here resolves the host or opens a file: a bad value is
/// refused with a message that says what to write instead, and an unreachable broker is the
/// relay path's status, not an error.
public struct RelayConfiguration: Equatable, Sendable, CustomStringConvertible {
    public enum Scheme: String, Equatable, Sendable {
        case mqtt, mqtts

        /// 1883 for MQTT over TCP, 8883 for MQTT over TLS (the IANA ports).
        public var defaultPort: Int { self == .mqtt ? 1883 : 8883 }
    }

    public var scheme: Scheme
    /// A host name, an IPv4 address, or an IPv6 address without brackets.
    public var host: String
    public var port: Int
    /// PEM file of the certificate authorities to trust for `mqtts`; nil trusts the system's.
    public var caFile: String?
    /// The user name and password sent in CONNECT; nil connects anonymously.
    public var login: RelayLogin?
    /// The certificate and key shown to a broker that asks for one (`mqtts` only).
    public var clientCertificate: RelayClientCertificate?
    /// Seconds between MQTT keepalive pings, 5 or more (libmosquitto's minimum): a peer cut off
    /// without a word is declared dead by the broker (and its will published) after 1.5 times this.
    public var keepalive: Int = 10

    /// The relay at `address`; `caFile` and `clientCertificate` only with `mqtts://`.
    public init(
        _ address: String, caFile: String? = nil, login: RelayLogin? = nil, clientCertificate: RelayClientCertificate? = nil
    ) throws(RelayConfigurationError) {
        let text = address.trimmed(newlines: false)
        guard !text.isEmpty else { throw .empty }
        // No address has an @ but one that holds a user name or password: refused before any
        // other error could quote the password back.
        guard !text.contains("@") else { throw .credentials(Self.hidingUserInfo(text)) }
        guard let separator = text.firstRange(of: "://") else { throw .noScheme(text) }
        guard let scheme = Scheme(rawValue: text[..<separator.lowerBound].lowercased()) else {
            throw .unknownScheme(text, String(text[..<separator.lowerBound]))
        }
        let authority = text[separator.upperBound...]
        if let extra = authority.firstIndex(where: { "/?#".contains($0) }),
            authority[extra...] != "/"
        {
            throw .extraParts(text)
        }
        let hostPort = authority.hasSuffix("/") ? authority.dropLast() : authority
        let (host, portText) = try Self.split(hostPort, in: text)
        guard !host.isEmpty else { throw .noHost(text) }
        var port = scheme.defaultPort
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value), portText.allSatisfy(\.isASCII) else {
                throw .badPort(text, portText)
            }
            port = value
        }
        if let caFile, scheme != .mqtts { throw .caWithoutTLS(caFile) }
        if let caFile, caFile.isEmpty { throw .emptyCAFile }
        if let problem = login?.problem { throw problem }
        if let clientCertificate {
            guard scheme == .mqtts else { throw .certificateWithoutTLS(clientCertificate.certificateFile) }
            if clientCertificate.certificateFile.isEmpty || clientCertificate.keyFile.isEmpty { throw .emptyCertificateFile }
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.caFile = caFile
        self.login = login
        self.clientCertificate = clientCertificate
    }

    /// `text` with whatever stands between `://` (or the start) and the last `@` replaced by
    /// `…`: an address that holds a password is quoted in an error without it.
    static func hidingUserInfo(_ text: String) -> String {
        let start = text.firstRange(of: "://")?.upperBound ?? text.startIndex
        guard let at = text[start...].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + "…" + String(text[at...])
    }

    /// `mqtt://broker.example:1883`, with brackets around an IPv6 address.
    public var url: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(shown):\(port)"
    }

    public var description: String { url }

    /// `host` and the port text after it, for `host`, `host:port`, `[v6]` and `[v6]:port`.
    private static func split(_ hostPort: Substring, in text: String) throws(RelayConfigurationError) -> (String, String?) {
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw .badHost(text) }
            let host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let rest = hostPort[hostPort.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":") else { throw .badHost(text) }
            return (host, String(rest.dropFirst()))
        }
        let parts = hostPort.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (String(parts[0]), nil)
        case 2: return (String(parts[0]), String(parts[1]))
        default: throw .badHost(text)  // an IPv6 address needs brackets
        }
    }
}

/// Why a relay address was refused; each message says what to write instead.
public enum RelayConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case noScheme(String)
    case unknownScheme(String, String)
    case extraParts(String)
    case credentials(String)
    case noHost(String)
    case badHost(String)
    case badPort(String, String)
    case caWithoutTLS(String)
    case emptyCAFile
    case emptyUser
    case badUser
    case emptyPassword
    case badPassword
    case certificateWithoutTLS(String)
    case emptyCertificateFile

    private static let form = "write mqtt://HOST[:PORT] (port 1883 by default) or mqtts://HOST[:PORT] for TLS (port 8883)"

    public var description: String {
        switch self {
        case .empty:
            "The relay address is empty: \(Self.form)."
        case .noScheme(let text):
            "The relay address \(Self.quoted(text)) has no scheme: \(Self.form)."
        case .unknownScheme(let text, let scheme):
            "The relay address \(Self.quoted(text)) uses \(Self.quoted(scheme + "://")), but a relay is an MQTT broker: \(Self.form)."
        case .extraParts(let text):
            "The relay address \(Self.quoted(text)) has a path, query or fragment, which a broker address does not take: \(Self.form)."
        case .credentials(let text):
            "The relay address \(Self.quoted(text)) holds a user name or password, which an address would show to anyone who runs ps or reads a log: "
                + "\(Self.form), give the user name with --relay-user (or BATON_RELAY_USER) and the password in BATON_RELAY_PASSWORD "
                + "or in a file named by --relay-password-file."
        case .noHost(let text):
            "The relay address \(Self.quoted(text)) names no host: \(Self.form)."
        case .badHost(let text):
            "The relay address \(Self.quoted(text)) is not HOST or HOST:PORT (write an IPv6 address in brackets, as mqtt://[2001:db8::1]:1883)."
        case .badPort(let text, let port):
            "The relay address \(Self.quoted(text)) has the port \(Self.quoted(port)); a port is a number from 1 to 65535."
        case .caWithoutTLS(let file):
            "--relay-ca \(Self.quoted(file)) applies only to a TLS relay: write the relay as mqtts://HOST[:PORT], or leave out --relay-ca."
        case .emptyCAFile:
            "--relay-ca was given an empty file name: name the PEM file of the broker's certificate authority."
        case .emptyUser:
            "The relay's user name is empty: give the name the broker knows you by with --relay-user NAME (or BATON_RELAY_USER)."
        case .badUser:
            "The relay's user name is longer than 65535 bytes or holds a NUL character, which MQTT cannot send: give the name the broker knows you by."
        case .emptyPassword:
            "The relay's password is empty: write it in BATON_RELAY_PASSWORD or in the file named by --relay-password-file, or give no password at all."
        case .badPassword:
            "The relay's password is longer than 65535 bytes or holds a NUL character, which MQTT cannot send: set a password the broker can check."
        case .certificateWithoutTLS(let file):
            "--relay-cert \(Self.quoted(file)) applies only to a TLS relay: a client certificate is shown during the TLS handshake, so write the relay as mqtts://HOST[:PORT]."
        case .emptyCertificateFile:
            "--relay-cert or --relay-cert-key was given an empty file name: name the PEM files of the client certificate and of its private key."
        }
    }

    private static func quoted(_ text: String) -> String { "\"\(text)\"" }
}
