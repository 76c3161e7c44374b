import Dispatch

/// Releases `value` on a background queue: when it holds the last reference to megabytes (a
/// 16 MB text), unmapping them takes milliseconds, which a key or a frame arriving meanwhile
/// would otherwise wait for on the thread that let go.
public func letGoInBackground(_ value: consuming some Sendable) {
    let owned = value
    DispatchQueue.global(qos: .utility).async { withExtendedLifetime(owned) {} }
}
