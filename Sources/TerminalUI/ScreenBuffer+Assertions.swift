extension ScreenBuffer {
    /// Throws a `ScreenMismatch` describing every differing row unless `lines()` equals `expected`.
    ///
    /// Like ratatui's `assert_buffer_lines`: tests state the whole screen, trailing
    /// spaces included, and a failure shows both screens.
    public func assertLines(_ expected: [String]) throws(ScreenMismatch) {
        if let mismatch = ScreenMismatch.compare(actual: lines(), expected: expected) {
            throw mismatch
        }
    }
}
