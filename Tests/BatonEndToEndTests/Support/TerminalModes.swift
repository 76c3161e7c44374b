/// A terminal's modes as `stty -a` printed them, e.g. to check `icanon` and `echo` are on.
struct TerminalModes: CustomStringConvertible {
    /// What `stty -a` printed.
    let description: String
    private let words: Set<String>

    init(sttyAll output: String) {
        description = output
        words = Set(output.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
    }

    /// Whether `stty -a` listed `mode` as on (`icanon`, not `-icanon`).
    func isOn(_ mode: String) -> Bool { words.contains(mode) }

    /// Whether `stty -a` listed `mode` as off (`-icanon`).
    func isOff(_ mode: String) -> Bool { words.contains("-" + mode) }
}
