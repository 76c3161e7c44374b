import BatonFiles
import FoundationEssentials
import HandoffRelay
import HandoffWire

/// The relay's settings as a program uses them, each with where it came from: the address, the
/// CA file, the user name, where the password came from (never the password), and the client
/// certificate and its key. `baton config` prints them; the program uses `configuration`.
public struct RelaySettings: Sendable {
    /// One setting's text and origin.
    public struct Value: Equatable, Sendable {
        public var text: String
        public var origin: EffectiveSetting.Origin

        public init(text: String, origin: EffectiveSetting.Origin) {
            self.text = text
            self.origin = origin
        }
    }

    public var address: Value
    public var ca: Value?
    public var user: Value?
    /// `(the variable's value)` for `BATON_RELAY_PASSWORD`, else the password file's path.
    public var password: Value?
    public var certificate: Value?
    public var certificateKey: Value?
    /// What the relay connects with, the password read.
    public var configuration: RelayConfiguration

    /// The largest password file read, in bytes.
    static let passwordFileLimit = 64 * 1024
}

extension NetworkOptions {
    public static let relayUserVariable = "BATON_RELAY_USER"
    /// Holds the password itself, and takes the place of a password file.
    public static let relayPasswordVariable = "BATON_RELAY_PASSWORD"
    public static let relayPasswordFileVariable = "BATON_RELAY_PASSWORD_FILE"
    public static let relayCertificateVariable = "BATON_RELAY_CERT"
    public static let relayCertificateKeyVariable = "BATON_RELAY_CERT_KEY"

    /// The relay's settings: each from its flag, else its `BATON_*` variable, else the `relay`
    /// file in Baton's config folder, whose lines apply only when the address is the file's own
    /// too (credentials written for one broker are never sent to another). Reads the password
    /// file; nil when nothing names a relay. A bad value is an error that says where it came
    /// from and what to write instead.
    public func relaySettings(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> RelaySettings? {
        if relayPassword != nil {
            throw CommandFailure(
                "--relay-password would show the password to every user of this machine (ps) and in shell history: "
                    + "set \(Self.relayPasswordVariable), or put the password alone in a file only you can read (chmod 600) "
                    + "and give --relay-password-file FILE.")
        }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let folder = GroupKey.defaultFolder(environment: environment)
        let filePath = PlainText.path(folder, Self.relayFileName)
        var file = RelayFile()
        let address: RelaySettings.Value
        if let relay {
            address = .init(text: relay, origin: .flag("--relay"))
        } else if let text = variable(Self.relayVariable) {
            address = .init(text: text, origin: .environment(Self.relayVariable))
        } else {
            guard let contents = try? String(contentsOfFile: filePath, encoding: .utf8) else { return nil }
            do {
                file = try RelayFile(parsing: contents, path: filePath)
            } catch {
                throw CommandFailure(error.description)
            }
            guard let entry = file.address else { return nil }
            address = .init(text: entry.value, origin: .file(filePath))
        }
        let home = environment["HOME"] ?? PlainText.homeFolder
        func pick(_ flag: String?, _ flagName: String, _ variableName: String, _ setting: RelayFile.Setting, path: Bool = true)
            -> RelaySettings.Value?
        {
            if let flag { return .init(text: flag, origin: .flag(flagName)) }
            if let text = variable(variableName) { return .init(text: text, origin: .environment(variableName)) }
            guard let entry = file.settings[setting] else { return nil }
            let text = path ? Self.resolve(entry.value, folder: folder, home: home) : entry.value
            return .init(text: text, origin: .file("\(filePath):\(entry.line)"))
        }
        let ca = pick(relayCA, "--relay-ca", Self.relayCAVariable, .ca)
        let user = pick(relayUser, "--relay-user", Self.relayUserVariable, .user, path: false)
        let certificate = pick(relayCert, "--relay-cert", Self.relayCertificateVariable, .cert)
        let certificateKey = pick(relayCertKey, "--relay-cert-key", Self.relayCertificateKeyVariable, .certKey)

        var password: (value: RelaySettings.Value, secret: RelayPassword)?
        if relayPasswordFile == nil, let text = environment[Self.relayPasswordVariable], !text.isEmpty {
            password = (.init(text: "(the variable's value)", origin: .environment(Self.relayPasswordVariable)), RelayPassword(text))
        } else if let named = pick(relayPasswordFile, "--relay-password-file", Self.relayPasswordFileVariable, .passwordFile) {
            password = (named, try Self.readPassword(named))
        }

        let source = address.origin.source ?? "default"
        if password != nil, user == nil {
            throw CommandFailure(
                "relay (\(source)): a password is given (\(password!.value.origin)) but no user name: "
                    + "give the name the broker knows you by with --relay-user NAME, \(Self.relayUserVariable), or `user NAME` in \(filePath).")
        }
        if (certificate == nil) != (certificateKey == nil) {
            let (given, missing) = certificate == nil ? ("a key", "--relay-cert FILE") : ("a certificate", "--relay-cert-key FILE")
            throw CommandFailure(
                "relay (\(source)): \(given) for the client certificate is given (\((certificate ?? certificateKey)!.origin)) "
                    + "but not its other half: give \(missing) too (env \(certificate == nil ? Self.relayCertificateVariable : Self.relayCertificateKeyVariable)).")
        }
        let login = user.map { RelayLogin(user: $0.text, password: password?.secret) }
        let client = certificate.flatMap { certificate in
            certificateKey.map { RelayClientCertificate(certificateFile: certificate.text, keyFile: $0.text) }
        }
        do {
            let configuration = try RelayConfiguration(address.text, caFile: ca?.text, login: login, clientCertificate: client)
            return RelaySettings(
                address: address, ca: ca, user: user, password: password?.value, certificate: certificate,
                certificateKey: certificateKey, configuration: configuration)
        } catch {
            throw CommandFailure("relay (\(source)): \(error)")
        }
    }

    /// A path written in the relay file: `~/` is the home folder, and a relative path is
    /// relative to the file's own folder.
    static func resolve(_ path: String, folder: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return PlainText.path(home, String(path.dropFirst(2))) }
        if path.hasPrefix("/") { return path }
        return PlainText.path(folder, path)
    }

    /// The password in the file `named`: the whole file but one line end, which must be the
    /// last. The file must be this user's and private (mode 0600), as the group key's is.
    static func readPassword(_ named: RelaySettings.Value) throws -> RelayPassword {
        let path = named.text
        let noun = "relay password file"
        let source = "relay password (\(named.origin)): "
        let bytes: [UInt8]?
        do {
            bytes = try PrivateFile.read(path: path, limit: RelaySettings.passwordFileLimit)
        } catch {
            throw CommandFailure(source + error.sentence(noun, path: path))
        }
        guard let bytes else {
            throw CommandFailure(
                source + "Cannot read the \(noun) \(path): there is no such file. Write the password alone in it and make it "
                    + "readable only by you (chmod 600 \(path)), or set \(relayPasswordVariable) instead.")
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure(source + "The \(noun) \(path) is not UTF-8 text: write the password in it as text.")
        }
        if text.last?.isNewline == true { text.removeLast() }  // one "\n" or "\r\n", as an editor leaves it
        guard !text.contains(where: \.isNewline) else {
            throw CommandFailure(source + "The \(noun) \(path) holds more than one line: write the password alone, on one line.")
        }
        guard !text.isEmpty else {
            throw CommandFailure(source + "The \(noun) \(path) is empty: write the password in it, alone on one line.")
        }
        return RelayPassword(text)
    }
}
