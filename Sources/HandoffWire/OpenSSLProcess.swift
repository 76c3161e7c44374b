import COpenSSL

/// OpenSSL's libcrypto, set up once per process without its exit handler.
///
/// By default OpenSSL frees its ciphers and providers from an `atexit` handler. Baton's other
/// threads keep running while the process exits (an event loop sealing, opening or freeing a
/// stream frame's cipher as a peer's CLOSE arrives), and a cipher context used, made or freed
/// after that handler ran crashes the process (SIGSEGV) instead of letting it end with its
/// status. A C program whose thread seals frames while `main` returns crashed in 9 of 200
/// exits with the handler and in none of 200 without it. The process's memory goes with it
/// anyway, so nothing is lost by not freeing it.
///
/// Only the first initialisation of OpenSSL in a process decides whether the handler is
/// registered: `prepared` is read before each first use (the stream's cipher, the relay's
/// libmosquitto), and `baton` reads it first thing.
public enum OpenSSLProcess {
    /// Whether OpenSSL was set up (it fails only when it cannot allocate).
    public static let prepared: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
}
