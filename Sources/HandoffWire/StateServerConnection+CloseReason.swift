extension StateServerConnection {
    /// Why the server closes; for logs and tests, never sent.
    public enum CloseReason: Equatable, Sendable, CustomStringConvertible {
        /// The ClientHello had another magic, version or reserved bytes.
        case badHello
        /// The ClientHello's key id names neither group key the server holds.
        case unknownKeyID
        /// The ClientHello's sender id has the tag of no listed device.
        case unlistedDevice
        /// The client's X25519 key gives an all-zero secret (a low-order key).
        case lowOrderKey
        /// The client's signature (the ClientProof) did not verify with its device's key.
        case badProof
        /// A frame had a bad length or did not open.
        case badFrame(StreamFrameError)
        /// An ERROR was sent.
        case answeredError(StreamErrorCode)
        /// The client sent the end of its stream early.
        case clientClosed
        /// A state made again did not match its digest: its last DATA frame was withheld.
        case stateMismatch

        public var description: String {
            switch self {
            case .badHello: "the ClientHello is not BTNS version 03"
            case .unknownKeyID: "the ClientHello names a group key this side does not hold"
            case .unlistedDevice: "the client is not a listed device"
            case .lowOrderKey: "the client's X25519 key is of low order"
            case .badProof: "the client's signature did not verify"
            case .badFrame(let error): "\(error)"
            case .answeredError(let code): "answered ERROR \(code.rawValue) (\(code))"
            case .clientClosed: "the client closed before its GET"
            case .stateMismatch: "the state made again does not match its digest; its last DATA frame was withheld"
            }
        }
    }
}
