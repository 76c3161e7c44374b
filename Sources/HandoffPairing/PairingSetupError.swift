/// Why a pairing could not begin: a socket could not be opened, or the `--peer` could not be
/// found or reached. The description is the sentence `baton pair` prints.
public struct PairingSetupError: Error, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
