extension String {
    /// This text with control characters and bidi controls made inert; see `TerminalSanitizer`.
    public var sanitizedForTerminal: String {
        TerminalSanitizer.sanitized(self)
    }
}
