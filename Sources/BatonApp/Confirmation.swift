/// A question the app asks before doing something that loses or replaces data.
public enum Confirmation: Equatable, Sendable {
    /// Ctrl-Q with unsaved changes: (y)es save then quit, (n)o quit anyway, (c)ancel.
    case quitWithUnsavedChanges
    /// The save target exists with other contents: (y) replace it, (n) keep it.
    case replaceFile(path: String)
    /// The save target is read-only: (y) write it anyway (it keeps its mode), (n) leave it.
    case replaceReadOnlyFile(path: String)
    /// The file the editor read or saved was changed on disk since: (y) replace it, (n) keep it.
    case fileChangedOnDisk(path: String)
    /// Continuing a nearby activity would replace the unsaved editor: (y) continue, (n) back to the list.
    case discardChangesToContinue(id: String)

    /// The question as the prompt line shows it.
    public var question: String {
        switch self {
        case .quitWithUnsavedChanges:
            "Unsaved changes — save? (y)es (n)o (c)ancel"
        case .replaceFile(let path):
            "\(path) exists and differs — replace it? (y/n)"
        case .replaceReadOnlyFile(let path):
            "\(path) is read-only — write it anyway? (y/n)"
        case .fileChangedOnDisk(let path):
            "\(path) changed on disk since it was read — replace it? (y/n)"
        case .discardChangesToContinue:
            "Replace unsaved changes? (y/n)"
        }
    }

    /// The question for narrow windows.
    public var shortQuestion: String {
        switch self {
        case .quitWithUnsavedChanges: "Save changes? y/n/c"
        case .replaceFile: "Replace file? y/n"
        case .replaceReadOnlyFile: "Read-only. Write? y/n"
        case .fileChangedOnDisk: "Changed on disk; replace? y/n"
        case .discardChangesToContinue: "Discard changes? y/n"
        }
    }
}
