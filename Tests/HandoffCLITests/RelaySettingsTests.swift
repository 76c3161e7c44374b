import Foundation
import HandoffCLI
import HandoffRelay
import Testing

/// The relay's login and client certificate: from flags, `BATON_*` variables and the `relay`
/// file, each with its origin in `baton config`, and the password from nowhere that shows it.
@Suite("The relay's user name, password and client certificate")
struct RelaySettingsTests {
    typealias Folder = EffectiveSettingsTests.Folder
    static let password = "hunter2 — ça va"

    func relay(_ arguments: [String], _ environment: [String: String] = [:], folder: Folder) throws -> RelaySettings? {
        var env = environment
        env["XDG_CONFIG_HOME"] = folder.config.path
        env["HOME"] = folder.config.path
        return try NetworkOptions.parse(arguments).relaySettings(environment: env)
    }

    func config(_ arguments: [String], _ environment: [String: String] = [:], folder: Folder) throws -> [EffectiveSetting] {
        var env = environment
        env["XDG_CONFIG_HOME"] = folder.config.path
        return try NetworkOptions.parse(arguments).effectiveSettings(environment: env) { _ in "v0" }
    }

    /// A private password file in `folder` holding `text`.
    func passwordFile(_ folder: Folder, _ text: String, mode: Int = 0o600, name: String = "relay.password") throws -> String {
        let path = folder.baton.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test("BATON_RELAY_USER and BATON_RELAY_PASSWORD log in; baton config names the variable, never the password")
    func fromVariables() throws {
        let folder = try Folder()
        let environment = ["BATON_RELAY": "mqtts://broker.test", "BATON_RELAY_USER": "alice", "BATON_RELAY_PASSWORD": Self.password]
        let settings = try #require(try relay([], environment, folder: folder))
        #expect(settings.configuration.login == RelayLogin(user: "alice", password: RelayPassword(Self.password)))
        #expect(settings.user == .init(text: "alice", origin: .environment("BATON_RELAY_USER")))
        #expect(settings.password == .init(text: "(the variable's value)", origin: .environment("BATON_RELAY_PASSWORD")))
        let listed = try config([], environment, folder: folder)
        #expect(listed.contains(.init("relay-user", "alice", .environment("BATON_RELAY_USER"))))
        #expect(listed.contains(.init("relay-password", "(the variable's value)", .environment("BATON_RELAY_PASSWORD"))))
        for text in [EffectiveSetting.text(listed), EffectiveSetting.json(listed)] {
            #expect(!text.contains("hunter2"), "\(text)")
        }
    }

    @Test("A password file: one line end is dropped; the flag beats the variables; a file others can read is refused with chmod 600")
    func passwordFiles() throws {
        let folder = try Folder()
        let path = try passwordFile(folder, Self.password + "\r\n")
        let settings = try #require(try relay(
            ["--relay", "mqtt://b", "--relay-user", "bob", "--relay-password-file", path],
            ["BATON_RELAY_PASSWORD": "from the variable", "BATON_RELAY_USER": "alice"], folder: folder))
        #expect(settings.configuration.login == RelayLogin(user: "bob", password: RelayPassword(Self.password)))
        #expect(settings.password == .init(text: path, origin: .flag("--relay-password-file")))
        let fromVariable = try #require(try relay(
            ["--relay", "mqtt://b", "--relay-user", "bob"], ["BATON_RELAY_PASSWORD_FILE": path], folder: folder))
        #expect(fromVariable.configuration.login?.password == RelayPassword(Self.password))

        let exposed = try passwordFile(folder, "x\n", mode: 0o644, name: "exposed")
        let error = #expect(throws: CommandFailure.self) {
            try relay(["--relay", "mqtt://b", "--relay-user", "bob", "--relay-password-file", exposed], folder: folder)
        }
        #expect(error?.description.contains("chmod 600") == true, "\(error?.description ?? "")")
        for (text, words) in [("", "is empty"), ("one\ntwo\n", "more than one line")] {
            let bad = try passwordFile(folder, text, name: "bad")
            let error = #expect(throws: CommandFailure.self) {
                try relay(["--relay", "mqtt://b", "--relay-user", "bob", "--relay-password-file", bad], folder: folder)
            }
            #expect(error?.description.contains(words) == true, "\(error?.description ?? "")")
        }
        let missing = #expect(throws: CommandFailure.self) {
            try relay(["--relay", "mqtt://b", "--relay-user", "bob", "--relay-password-file", "/nonexistent/pw"], folder: folder)
        }
        #expect(missing?.description.contains("no such file") == true, "\(missing?.description ?? "")")
    }

    @Test("The relay file's lines: paths beside it, and used only with the file's own address")
    func relayFile() throws {
        let folder = try Folder()
        _ = try passwordFile(folder, Self.password + "\n")
        try folder.write("relay", """
            # the office broker
            mqtts://broker.test
            user alice
            password-file relay.password
            ca ~/ca.pem
            cert alice.crt
            cert-key /etc/baton/alice.key

            """)
        let settings = try #require(try relay([], folder: folder))
        let file = folder.baton.appendingPathComponent("relay").path
        #expect(settings.configuration.login == RelayLogin(user: "alice", password: RelayPassword(Self.password)))
        #expect(settings.configuration.caFile == folder.config.appendingPathComponent("ca.pem").path)
        #expect(settings.configuration.clientCertificate == RelayClientCertificate(
            certificateFile: folder.baton.appendingPathComponent("alice.crt").path, keyFile: "/etc/baton/alice.key"))
        #expect(settings.user == .init(text: "alice", origin: .file("\(file):3")))
        #expect(settings.password?.origin == .file("\(file):4"))
        // A variable still beats the file's line.
        #expect(try relay([], ["BATON_RELAY_USER": "carol"], folder: folder)?.configuration.login?.user == "carol")

        // Another broker named on the command line gets none of the file's credentials.
        let other = try #require(try relay(["--relay", "mqtt://elsewhere.test"], folder: folder))
        #expect(other.configuration.login == nil && other.configuration.clientCertificate == nil && other.configuration.caFile == nil)
    }

    @Test("Refused with what to do: a password on the command line, in an address or in the relay file; a password without a user; half a certificate; a certificate without TLS")
    func refusals() throws {
        let folder = try Folder()
        func failure(_ arguments: [String], _ environment: [String: String] = [:]) -> String {
            (#expect(throws: CommandFailure.self) { try relay(arguments, environment, folder: folder) })?.description ?? ""
        }
        let onCommandLine = failure(["--relay", "mqtt://b", "--relay-user", "bob", "--relay-password", "hunter2"])
        #expect(onCommandLine.contains("BATON_RELAY_PASSWORD") && onCommandLine.contains("--relay-password-file"))
        #expect(!onCommandLine.contains("hunter2"))
        let inAddress = failure(["--relay", "mqtt://bob:hunter2@b"])
        #expect(inAddress.contains("--relay-user") && !inAddress.contains("hunter2"), "\(inAddress)")
        #expect(failure(["--relay", "mqtt://b"], ["BATON_RELAY_PASSWORD": "x"]).contains("--relay-user NAME"))
        #expect(failure(["--relay", "mqtts://b", "--relay-cert", "c.pem"]).contains("--relay-cert-key FILE"))
        #expect(failure(["--relay", "mqtts://b"], ["BATON_RELAY_CERT_KEY": "k.pem"]).contains("--relay-cert FILE"))
        #expect(failure(["--relay", "mqtt://b", "--relay-cert", "c.pem", "--relay-cert-key", "k.pem"]).contains("mqtts://"))
        try folder.write("relay", "mqtt://b\nuser bob\npassword hunter2\n")
        let inFile = failure([])
        #expect(inFile.contains("relay:3") && inFile.contains("password-file") && !inFile.contains("hunter2"), "\(inFile)")
    }
}
