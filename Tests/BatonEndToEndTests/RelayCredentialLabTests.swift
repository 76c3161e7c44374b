import Foundation
import Testing

/// Nested in `LabFaultTests` (serialized), as `RelayLabTests` is: one lab at a time.
extension LabFaultTests {
    /// Issue 36, a hosted broker: Debian's mosquitto on the router of two sites (`netlab sites`),
    /// refusing anonymous clients, once with a `password_file` and once with `require_certificate
    /// true`. `baton doctor` tells a refused login, a missing one, a refused or missing client
    /// certificate and an unreachable broker apart; with the right credentials, from variables,
    /// flags or the `relay` file, an activity crosses from one site to the other through it.
    ///
    /// Needs root, `ip netns`, mosquitto, mosquitto_passwd, openssl and the built programs; skips,
    /// saying why, without them.
    @Suite("A broker that refuses anonymous clients: a login, a client certificate (netlab sites + mosquitto)",
        .serialized, .timeLimit(.minutes(3)))
    struct RelayCredentialLabTests {
        static let password = "Baton lab, correct horse ☃"  // no colon: mosquitto_passwd -U (2.0.11) mangles a password with one

        /// A folder of its own for one test's files, removed afterwards; the broker (root, then
        /// itself as root) reads the files in it.
        final class Files {
            let path: String
            init() throws {
                path = NSTemporaryDirectory() + "baton-cred-\(UInt32.random(in: 0...UInt32.max))"
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
            deinit { try? FileManager.default.removeItem(atPath: path) }
            func file(_ name: String) -> String { path + "/" + name }
            /// Writes `text` into `name` with `mode`, and returns its path.
            @discardableResult
            func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
                try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file(name))
                return file(name)
            }
            /// A config folder for one program: the lab's identity, and `relay` file text when given.
            func config(_ name: String, relay: String? = nil) throws -> String {
                let config = file(name)
                try E2E.giveSharedIdentity(config: config)
                if let relay { try write("\(name)/baton/relay", relay) }
                return config
            }
        }

        /// mosquitto on the lab's router with `settings`, running until `stop()`.
        static func broker(_ lab: Lab, files: Files, _ settings: [String]) throws -> LabProcess {
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
                try skip("mosquitto is not installed (apt-get install -y mosquitto)")
            }
            let config = try files.write("mosquitto.conf", (settings + ["user root", "log_dest stderr", ""]).joined(separator: "\n"))
            let broker = try LabProcess("broker", namespace: "\(lab.name)-r", ["/usr/sbin/mosquitto", "-c", config])
            try broker.waitForLine("the broker to run") { $0.text.contains(" running") }
            return broker
        }

        /// `baton doctor --json` on host `host` with `arguments`: the relay check's finding and the exit status.
        static func relayFinding(
            _ lab: Lab, host: Int, _ arguments: [String], environment: [String: String] = [:]
        ) throws -> (status: String, detail: String, fix: String, exit: Int32) {
            let (result, _) = try DoctorLabTests.doctor(lab, host: host, ["--json", "--listen", "0.5"] + arguments, environment: environment)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)\(result.errorOutput)")
            let checks = try #require(object["checks"] as? [[String: Any]])
            let relay = try #require(checks.first { $0["name"] as? String == "relay" }, "\(result.output)")
            let everything = result.output + result.errorOutput
            #expect(!everything.contains(password), "doctor printed the password: \(everything)")
            print("RelayCredentialLabTests: \(relay["status"] ?? "") relay: \(relay["detail"] ?? "")")
            return (relay["status"] as? String ?? "", relay["detail"] as? String ?? "", relay["fix"] as? String ?? "", result.status)
        }

        /// `baton peer continue` of the counter `from` on host `host`: its exit status and output.
        static func continueCounter(
            _ lab: Lab, host: Int, peer: [String], from: String, config: String, _ arguments: [String], environment: [String: String] = [:]
        ) throws -> CommandResult {
            var variables = LabFaultTests.commandEnvironment
            variables["XDG_CONFIG_HOME"] = config
            variables["HOME"] = config
            variables.merge(environment) { $1 }
            return try Command.run(
                lab.command(host: host, peer + [
                    "continue", "--type", "dev.baton.counter", "--from", from, "--wait", "15", "--name", "e2e-continuer",
                ] + arguments), environment: variables, check: false, timeout: 60)
        }

        @Test("allow_anonymous false + password_file: no login, a wrong password and no broker are told apart; the right one, from a variable or the relay file, carries a handoff")
        func passwordFile() throws {
            let peer = try Binaries.peer()
            _ = try Binaries.baton()
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd") else {
                try skip("mosquitto_passwd is not installed (apt-get install -y mosquitto)")
            }
            try Lab.requireUsable()
            let lab = try Lab(hosts: 2, sites: true)
            defer { lab.down() }
            let files = try Files()
            let passwords = try files.write("passwords", "alice:\(Self.password)\n")
            try Command.run(["mosquitto_passwd", "-U", passwords])
            let broker = try Self.broker(lab, files: files, ["listener 1883 0.0.0.0", "allow_anonymous false", "password_file \(passwords)"])
            defer { broker.stop() }
            let relay = ["--relay", "mqtt://\(lab.routerAddress)"]
            let url = "mqtt://\(lab.routerAddress):1883"

            let anonymous = try Self.relayFinding(lab, host: 1, relay)
            #expect(anonymous.exit == 1)
            #expect(anonymous.detail == "\(url): the broker refuses clients without a user name and password", "\(anonymous)")
            #expect(anonymous.fix.contains("--relay-user NAME") && anonymous.fix.contains("BATON_RELAY_PASSWORD"), "\(anonymous)")

            let wrong = try Self.relayFinding(lab, host: 2, relay, environment: ["BATON_RELAY_USER": "alice", "BATON_RELAY_PASSWORD": "not it"])
            #expect(wrong.detail == "\(url): the broker refused the user name or password (user alice)", "\(wrong)")
            #expect(wrong.fix.contains("mosquitto_passwd"), "\(wrong)")

            let login = ["BATON_RELAY_USER": "alice", "BATON_RELAY_PASSWORD": Self.password]
            let nobody = try Self.relayFinding(lab, host: 1, ["--relay", "mqtt://\(lab.routerAddress):1884"], environment: login)
            #expect(nobody.detail.hasPrefix("could not connect to mqtt://\(lab.routerAddress):1884 within 3 s"), "\(nobody)")

            let right = try Self.relayFinding(lab, host: 1, relay, environment: login)
            // Plain MQTT: the login works, and the password crossed the wire in the clear, which is worth a warning.
            #expect(right.status == "warning" && right.detail.hasPrefix("\(url) connected as alice in "), "\(right)")

            // A counter on site A logs in from BATON_RELAY_USER and BATON_RELAY_PASSWORD; site B
            // continues it through the broker with the relay file's address, user and password file.
            let a = try LabProcess("e2e-a", lab: lab, host: 1, peer + [
                "announce", "--name", "e2e-a", "--type", "dev.baton.counter", "--user-info", "{\"count\":7}",
            ] + relay, environment: login)
            defer { a.stop() }
            try a.waitForLine("a's first publish") { LabFaultTests.published($0) != nil }
            let config = try files.config("b", relay: "mqtt://\(lab.routerAddress)  # the lab's broker\nuser alice\npassword-file relay.password\n")
            try files.write("b/baton/relay.password", Self.password + "\n")
            let continued = try Self.continueCounter(lab, host: 2, peer: peer, from: "e2e-a", config: config, [])
            #expect(continued.status == 0, "continue on h2 failed: \(continued.output)\(continued.errorOutput)")
            #expect(continued.output.contains("count"), "\(continued.output)")
            let everything = continued.output + continued.errorOutput + a.transcript(last: 200)
            #expect(!everything.contains(Self.password), "the password was printed: \(everything)")
        }

        @Test("require_certificate true: no certificate and a stranger's are told apart from a reachable broker; the CA's, from flags or variables, carries a handoff")
        func clientCertificate() throws {
            let peer = try Binaries.peer()
            _ = try Binaries.baton()
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { try skip("openssl is not installed") }
            try Lab.requireUsable()
            let lab = try Lab(hosts: 2, sites: true)
            defer { lab.down() }
            let files = try Files()
            try Self.makeCertificates(in: files, brokerAddress: lab.routerAddress)
            let broker = try Self.broker(lab, files: files, [
                "listener 8883 0.0.0.0", "allow_anonymous true", "cafile \(files.file("ca.pem"))",
                "certfile \(files.file("broker.pem"))", "keyfile \(files.file("broker.key"))", "require_certificate true",
            ])
            defer { broker.stop() }
            let relay = ["--relay", "mqtts://\(lab.routerAddress)", "--relay-ca", files.file("ca.pem")]
            let url = "mqtts://\(lab.routerAddress):8883 over TLS (CA \(files.file("ca.pem")))"

            let none = try Self.relayFinding(lab, host: 1, relay)
            #expect(none.exit == 1)
            #expect(none.detail == "\(url): the broker asks for a client certificate", "\(none)")
            #expect(none.fix.contains("--relay-cert FILE --relay-cert-key FILE"), "\(none)")

            let stranger = try Self.relayFinding(
                lab, host: 2, relay + ["--relay-cert", files.file("stranger.pem"), "--relay-cert-key", files.file("stranger.key")])
            #expect(stranger.detail.hasPrefix("\(url): the broker refused the client certificate ("), "\(stranger)")
            #expect(stranger.fix.contains("the broker does not accept \(files.file("stranger.pem"))"), "\(stranger)")

            let certificate = ["BATON_RELAY_CERT": files.file("client.pem"), "BATON_RELAY_CERT_KEY": files.file("client.key")]
            let right = try Self.relayFinding(lab, host: 1, relay, environment: certificate)
            #expect(right.status == "ok", "\(right)")
            #expect(right.detail.hasPrefix(
                "mqtts://\(lab.routerAddress):8883 connected over TLS (CA \(files.file("ca.pem"))) with the client certificate \(files.file("client.pem")) in "),
                "\(right)")

            // Site A offers a counter with the certificate from variables; site B continues it with flags.
            let a = try LabProcess("e2e-a", lab: lab, host: 1, peer + [
                "announce", "--name", "e2e-a", "--type", "dev.baton.counter", "--user-info", "{\"count\":9}",
            ] + relay, environment: certificate)
            defer { a.stop() }
            try a.waitForLine("a's first publish") { LabFaultTests.published($0) != nil }
            let continued = try Self.continueCounter(
                lab, host: 2, peer: peer, from: "e2e-a", config: try files.config("b"),
                relay + ["--relay-cert", files.file("client.pem"), "--relay-cert-key", files.file("client.key")])
            #expect(continued.status == 0, "continue on h2 failed: \(continued.output)\(continued.errorOutput)")
            #expect(continued.output.contains("count"), "\(continued.output)")
        }

        /// A throwaway CA; a broker certificate it issued for `brokerAddress`; a client
        /// certificate it issued; and a stranger's self-signed one: made by the openssl command.
        static func makeCertificates(in files: Files, brokerAddress: String) throws {
            try files.write("san.cnf", "subjectAltName=IP:\(brokerAddress)\n", mode: 0o644)
            let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            let signed = ["-CA", files.file("ca.pem"), "-CAkey", files.file("ca.key"), "-CAcreateserial", "-days", "1"]
            for arguments in [
                ["req", "-x509"] + key + ["-keyout", files.file("ca.key"), "-out", files.file("ca.pem"), "-days", "1", "-subj", "/CN=Baton lab CA"],
                ["req"] + key + ["-keyout", files.file("broker.key"), "-out", files.file("broker.csr"), "-subj", "/CN=\(brokerAddress)"],
                ["x509", "-req", "-in", files.file("broker.csr"), "-out", files.file("broker.pem"), "-extfile", files.file("san.cnf")] + signed,
                ["req"] + key + ["-keyout", files.file("client.key"), "-out", files.file("client.csr"), "-subj", "/CN=e2e-a"],
                ["x509", "-req", "-in", files.file("client.csr"), "-out", files.file("client.pem")] + signed,
                ["req", "-x509"] + key + ["-keyout", files.file("stranger.key"), "-out", files.file("stranger.pem"), "-days", "1", "-subj", "/CN=stranger"],
            ] {
                try Command.run(["/usr/bin/openssl"] + arguments)
            }
        }
    }
}
