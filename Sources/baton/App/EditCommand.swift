import ArgumentParser
import BatonApp
import BatonRuntime
import FoundationEssentials
import HandoffWire
import Glibc
import HandoffCLI

/// `baton edit [FILE]`.
struct EditCommand: AsyncParsableCommand {
    /// What `--recover` prints: each copy, newest first, and how to open it.
    static func recoverable(_ store: RecoveryStore) -> String {
        let copies = store.all()
        guard !copies.isEmpty else { return "Nothing to recover (no copies in \(store.folder))." }
        return copies.map { location, copy in
            let when = PlainText.time(copy.savedAt, format: "%Y-%m-%d %H:%M")
            let bytes = copy.text.utf8.count
            if let path = copy.path {
                return "\(path)  (\(bytes) bytes, \(when))\n  open: baton edit \(CounterCommand.shellWord(path))  (answer y)"
            }
            return "\(copy.name ?? "an unnamed buffer"), no file yet  (\(bytes) bytes, \(when))\n  the text is in \(location) (JSON, key \"text\")"
        }.joined(separator: "\n")
    }

    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a text file, and continue the edit — text and cursor — in another terminal.",
        discussion: """
            Keys: type to insert (a bracketed paste is inserted whole, as text), Tab for a tab; \
            arrows, Home/End, PgUp/PgDn move; Ctrl-Z (or Alt-U) undoes, Ctrl-Y redoes; Ctrl-F or \
            Ctrl-W searches (F3 again); Ctrl-K cuts the line, Ctrl-U pastes (on any machine of the group: \
            the clipboard follows you, baton kv); Ctrl-G goes to a line; \
            Ctrl-S saves (atomically; the file you opened without a question, unless another \
            program changed it since), Ctrl-O saves under another name or path; Ctrl-Q or Ctrl-X \
            quits and asks first about unsaved changes; Ctrl-N lists what peers offer. The recent \
            undo history travels with the edit. \
            A continued edit is never written to disk on its own: Ctrl-S saves it under its file \
            name in the current folder, asking before replacing a different file (Ctrl-O saves it \
            under another name); so --continue-activity takes no FILE. Only regular \
            files up to 64 MB are opened (a FIFO, socket or device is refused); a symbolic link is \
            followed, and saving writes its target, keeping the link. \
            Unsaved changes are kept in $XDG_STATE_HOME/baton/recovery (~/.local/state/baton/recovery) \
            until saved or discarded; the next baton edit FILE offers them, and --recover lists them.
            """)

    @OptionGroup var session: SessionOptions
    @OptionGroup var network: NetworkOptions

    @Argument(help: ArgumentHelp(
        "The file to edit; it is created on the first save. Not with --continue-activity, which continues a peer's file.",
        valueName: "file"))
    var file: String?

    @Flag(help: ArgumentHelp(
        "List the unsaved changes that can be recovered (kept in $XDG_STATE_HOME/baton/recovery) and how to open each."))
    var recover = false

    func validate() throws {
        if let file, session.continueActivity {
            throw ValidationError(
                "--continue-activity continues a peer's file, so '\(file)' would not be opened: run baton edit --continue-activity, then save with Ctrl-S (under the peer's file name) or Ctrl-O (under another name, e.g. \(file)).")
        }
    }

    @MainActor
    func run() async throws {
        Self.returnLargeBuffersToTheSystem()
        if recover {
            Console.line(Self.recoverable(RecoveryStore.standard()))
            return
        }
        let launch = Launch(network: network, options: session.launch)
        guard !session.continueActivity else {  // the counter is replaced by what is continued
            try await launch.run(start: .counter(CounterState(count: 0)), continueType: "dev.baton.editing")
            return
        }
        // Handed over, not kept here: a local would hold the file's text (16 MB for a 16 MB
        // file) for as long as the editor runs, after the editor itself has let it go.
        let (editor, opening) = try Launch.editorSession(file: file)
        try await launch.run(start: consume editor, opening: opening, continueType: nil)
    }
}

extension EditCommand {
    /// A big file's state (tens of MB) is encoded and hashed at each save, off the main actor,
    /// into buffers freed soon after. glibc raises its mmap threshold each time such a buffer is
    /// freed, so later ones come from the heap and stay resident; pinned at 256 KiB they are
    /// mapped and unmapped, and after typing into a 16 MB file RSS was 106 MB instead of 194-261
    /// (BENCHMARKS.md, "Editor (issue 23)").
    static func returnLargeBuffersToTheSystem() {
        #if canImport(Glibc)
        // mallopt and M_MMAP_THRESHOLD (-3) are in <malloc.h>, which the Glibc module leaves out.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }  // nil: RTLD_DEFAULT
        _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 256 * 1024)
        #endif
    }
}
