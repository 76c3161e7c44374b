import Crypto

/// SHA-256 under way. swift-crypto's `SHA256` is a value (it copies its context before
/// writing to one it shares) but is not marked `Sendable`; the machine that holds this one is
/// used by one thread at a time.
struct RunningSHA256: @unchecked Sendable {
    var value: SHA256
}
