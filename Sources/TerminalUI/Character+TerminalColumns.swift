extension Character {
    /// How many terminal columns this character takes (0, 1 or 2); see `CharacterWidth`.
    public var terminalColumns: Int {
        CharacterWidth.columns(of: self)
    }
}

extension String {
    /// How many terminal columns this text takes once sanitized, the sum of its characters' widths.
    public var terminalColumns: Int {
        sanitizedForTerminal.reduce(0) { $0 + $1.terminalColumns }
    }
}
