import CMosquitto
import COpenSSL
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// How the client proves who it is and whom it trusts, all through libmosquitto's own calls:
/// the user name and password (`mosquitto_username_pw_set`), and TLS with the CA file, the
/// system's CAs and the client certificate (`mosquitto_tls_set`).
extension MQTTClient {
    /// Hands `configuration`'s login and TLS settings to libmosquitto. Throws, naming the file
    /// and the option, when a file cannot be read; what is in the files (PEM, a key that matches
    /// its certificate) is checked by OpenSSL when connecting, and reported as the path's reason.
    func configureCredentials() throws(RelayError) {
        if let login = configuration.login {
            let rc = mosquitto_username_pw_set(handle, login.user, login.password?.text)
            guard rc == Self.success else { throw .library("libmosquitto refused the user name or password: \(Self.reason(rc))") }
        }
        guard configuration.scheme == .mqtts else { return }
        let caFile = configuration.caFile
        let client = configuration.clientCertificate
        for (file, option, noun) in [
            (caFile, "--relay-ca", "the relay's CA file"), (client?.certificateFile, "--relay-cert", "the relay's client certificate"),
            (client?.keyFile, "--relay-cert-key", "the client certificate's key"),
        ] {
            guard let file, let problem = Self.unreadable(file) else { continue }
            throw .tls("cannot use \(file) as \(noun) (\(option)): \(problem)")
        }
        if caFile == nil {
            let rc = mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
            guard rc == Self.success else { throw .tls("cannot use the system's trusted certificates: \(Self.reason(rc))") }
            guard client != nil else { return }
        }
        // Without a CA file the system's folder of CAs stands in: libmosquitto takes a client
        // certificate only together with a CA file or folder.
        let folder = caFile == nil ? String(cString: X509_get_default_cert_dir()) : nil
        // A key with a passphrase is refused rather than asked for on the terminal, which the
        // editor or a script owns: OpenSSL is handed an empty passphrase.
        let rc = mosquitto_tls_set(handle, caFile, folder, client?.certificateFile, client?.keyFile) { _, _, _, _ in 0 }
        guard rc == Self.success else {
            throw .tls(caFile.map { "cannot use \($0) as the relay's CA file (--relay-ca): \(Self.reason(rc))" }
                ?? "cannot use the client certificate (--relay-cert, --relay-cert-key): \(Self.reason(rc))")
        }
    }

    /// Why the file at `path` cannot be read, or nil when it can (a regular file, opened).
    static func unreadable(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return words(String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return words(String(cString: strerror(errno))) }
        return info.st_mode & S_IFMT == S_IFREG ? nil : "not a regular file"
    }
}
