import TerminalUI

/// A key or a paste that arrived while a save's outcome was still to come.
///
/// Ctrl-S asks the Program to write the file, and the answer comes back as a message: saved, or
/// a question (the file is read-only, another file is there, it changed on disk). A key typed
/// right behind Ctrl-S — the `y` of a fast typist, a paste, keys that ssh delivers in one
/// burst — may reach `update` before that answer does. It is held, in order, until the answer
/// has been applied, so a `y` answers the question it was meant for instead of being typed
/// into the text.
public enum HeldInput: Equatable, Sendable {
    case key(Key)
    case paste(String)
}
