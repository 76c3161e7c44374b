/// Copies of a buffer kept beside the editor, and the one copy of its text.
extension TextBuffer {
    /// The same buffer, version and all, with the rope's arrays of its own (`TextRope.unshared`).
    public func unshared() -> TextBuffer {
        var copy = self
        copy.rope = rope.unshared()
        copy.version = version
        return copy
    }

    /// The same buffer, version and all, its blocks cut again from its joined text (nil when the
    /// text is not joined for this version). A buffer opened from a file holds its lines as
    /// slices of the file's text; once edited and joined for a save, it would hold that text
    /// and the join side by side, two copies of 16 MB for a 16 MB file. Cut from the join,
    /// the file's text is let go.
    public func recutFromText() -> TextBuffer? {
        guard isTextKept else { return nil }
        var copy = self
        copy.rope = rope.recut(from: text)
        copy.version = version
        return copy
    }
}

extension TextBuffer {
    /// Takes `other`'s blocks when it holds this same version of the text (a recut made off
    /// the main actor, `recutFromText`); the cursor and all else stay. False, and nothing
    /// changes, when the text changed since.
    public mutating func takeBlocks(of other: TextBuffer) -> Bool {
        guard other.version == version else { return false }
        let same = version
        rope = other.rope
        version = same
        return true
    }
}
