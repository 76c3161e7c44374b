/// A text in the pieces that are drawn as cells, without segmenting what need not be: each
/// scalar that is one column alone (`CharacterWidth.isNarrowAlone`) and is followed by another
/// such scalar, or by nothing, is a grapheme of its own (none of them joins a neighbour); every
/// other character comes whole. Titles, hints and the status bar, drawn and measured on every
/// key, are mostly the first kind, with a few symbols ("↪", "—", "é") among them.
public struct DrawnPieces: Sequence, IteratorProtocol {
    public enum Piece {
        case narrow(Unicode.Scalar)
        case character(Character)
    }

    private let text: String
    /// Always a character's start: the text is walked from one boundary to the next.
    private var index: String.Index

    public init(_ text: String) {
        self.text = text
        index = text.startIndex
    }

    public mutating func next() -> Piece? {
        let scalars = text.unicodeScalars
        guard index < scalars.endIndex else { return nil }
        let scalar = scalars[index]
        let after = scalars.index(after: index)
        if CharacterWidth.isNarrowAlone(scalar), after == scalars.endIndex || CharacterWidth.isNarrowAlone(scalars[after]) {
            index = after
            return .narrow(scalar)
        }
        let character = text[index]
        index = text.index(after: index)
        return .character(character)
    }
}
