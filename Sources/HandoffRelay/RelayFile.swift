import FoundationEssentials

/// The `relay` file in Baton's config folder: the broker's address on a line of its own, and
/// how to log in to it, one `NAME VALUE` a line:
///
///     # the office broker
///     mqtts://broker.example.com
///     user alice
///     password-file relay.password
///     ca /etc/ssl/office-ca.pem
///     cert alice.crt
///     cert-key alice.key
///
/// `#` starts a comment, blank lines are ignored. Never a password: the file names a file that
/// holds it. This reads text only; the files it names are read by whoever uses the settings.
public struct RelayFile: Equatable, Sendable {
    /// A setting's value and the line (from 1) it was written on.
    public struct Entry: Equatable, Sendable {
        public var value: String
        public var line: Int
    }

    /// The settings the file takes besides the address, by name.
    public enum Setting: String, CaseIterable, Sendable {
        case user
        case passwordFile = "password-file"
        case ca
        case cert
        case certKey = "cert-key"
    }

    /// The broker's address, when the file names one.
    public var address: Entry?
    /// The other settings, by name.
    public var settings: [Setting: Entry] = [:]

    public init(address: Entry? = nil, settings: [Setting: Entry] = [:]) {
        self.address = address
        self.settings = settings
    }

    /// The file's `text`; `path` names it in errors. A second address, a setting written twice,
    /// a name the file does not take, or a password are refused, naming the line.
    public init(parsing text: String, path: String) throws(RelayFileError) {
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            let kept = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let line = kept.trimmed(newlines: false)
            guard !line.isEmpty else { continue }
            let place = "\(path):\(number)"
            if line.contains("://") {
                guard address == nil else { throw .severalAddresses(path) }
                address = Entry(value: line, line: number)
                continue
            }
            let parts = line.split(maxSplits: 1, whereSeparator: \.isWhitespace)
            let name = String(parts[0])
            let value = parts.count > 1 ? parts[1].trimmed(newlines: false) : ""
            guard let setting = Setting(rawValue: name.lowercased()) else {
                throw name.lowercased() == "password" ? .password(place) : .unknown(place, name)
            }
            guard !value.isEmpty else { throw .noValue(place, setting.rawValue) }
            guard settings[setting] == nil else { throw .twice(place, setting.rawValue) }
            settings[setting] = Entry(value: value, line: number)
        }
    }
}

/// Why a `relay` file was refused; each message names the line and says what to write instead.
public enum RelayFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case severalAddresses(String)
    case unknown(String, String)
    case password(String)
    case noValue(String, String)
    case twice(String, String)

    private static let names = RelayFile.Setting.allCases.map(\.rawValue).joined(separator: ", ")

    public var description: String {
        switch self {
        case .severalAddresses(let path):
            "\(path) names more than one relay; a peer uses one: keep one mqtt:// or mqtts:// line and comment out the rest with #."
        case .unknown(let place, let name):
            "\(place): \"\(name)\" is not a relay setting: the file takes one mqtt:// or mqtts:// address, and lines "
                + "NAME VALUE where NAME is one of \(Self.names)."
        case .password(let place):
            "\(place): a password is not written in the relay file: put it alone in a file only you can read "
                + "(chmod 600) and name that file here as `password-file FILE`, or set BATON_RELAY_PASSWORD."
        case .noValue(let place, let name):
            "\(place): \(name) needs a value after it, as `\(name) \(name == "user" ? "NAME" : "FILE")`."
        case .twice(let place, let name):
            "\(place): \(name) is given a second time; keep one line and comment out the other with #."
        }
    }
}
