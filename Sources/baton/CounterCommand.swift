import ArgumentParser
import BatonApp
import BatonRuntime
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandoffCLI

/// `baton` / `baton counter`, and `baton --continue-activity [TYPE]`.
struct CounterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "counter",
        abstract: "Count with + and -, and continue the count in another terminal (the default command).",
        discussion: """
            Keys: + or Up adds one, - or Down takes one away, r resets, n or Ctrl-N lists what \
            peers offer, q quits. With --continue-activity [TYPE], starts from the newest activity a \
            peer offers instead — a counter or an editing session, whichever it is.
            """)

    @OptionGroup var session: SessionOptions
    @OptionGroup var network: NetworkOptions

    @Argument(help: ArgumentHelp(
        "With --continue-activity: the activity type to continue, e.g. dev.baton.editing.", valueName: "type"))
    var activityType: String?

    func validate() throws {
        if let activityType, !session.continueActivity {
            if let advice = Self.commandAdvice(activityType, arguments: Array(CommandLine.arguments.dropFirst())) {
                throw ValidationError(advice)
            }
            throw ValidationError("'\(activityType)' is not a command; to continue an activity of that type, use --continue-activity \(activityType).")
        }
    }

    /// What to say when `word`, taken as the counter's activity type, is a command (options came
    /// before it, so it was read as the counter's argument) or nearly one (a typo): the command
    /// line to run instead, the command first. Nil when `word` is neither.
    static func commandAdvice(_ word: String, arguments: [String]) -> String? {
        let names = Baton.configuration.subcommands.compactMap { $0.configuration.commandName }
        var rest = arguments
        if let index = rest.firstIndex(of: word) { rest.remove(at: index) }
        let line = { (command: String) in (["baton", command] + rest.map(shellWord)).joined(separator: " ") }
        if names.contains(word) {
            return "'\(word)' came after options, which go after the command: \(line(word))"
        }
        let allowed = word.count <= 4 ? 1 : 2
        let near = names.map { (name: $0, distance: editDistance(word, $0)) }
            .filter { $0.distance <= allowed }
            .min { $0.distance < $1.distance }
        guard let near else { return nil }
        return "'\(word)' is not a command; did you mean \(near.name)? \(line(near.name))"
    }

    /// Levenshtein distance between two strings, by characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `argument` as one shell word: as it is when plain, else in single quotes.
    static func shellWord(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._/:@=+,-%".unicodeScalars.contains($0)
        }
        return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    @MainActor
    func run() async throws {
        try await Launch(network: network, options: session).run(
            start: .counter(CounterState(count: 0)), continueType: activityType)
    }
}

/// `baton edit [FILE]`.
struct EditCommand: AsyncParsableCommand {
    /// What `--recover` prints: each copy, newest first, and how to open it.
    static func recoverable(_ store: RecoveryStore) -> String {
        let copies = store.all()
        guard !copies.isEmpty else { return "Nothing to recover (no copies in \(store.folder))." }
        let time = DateFormatter()
        time.dateFormat = "yyyy-MM-dd HH:mm"
        return copies.map { location, copy in
            let when = time.string(from: copy.savedAt)
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
            print(Self.recoverable(RecoveryStore.standard()))
            return
        }
        var start: (session: Session, opening: [AppMessage]) = (.counter(CounterState(count: 0)), [])
        if !session.continueActivity {  // else the counter is replaced by what is continued
            start = try Launch.editorSession(file: file)
        }
        try await Launch(network: network, options: session).run(
            start: start.session, opening: start.opening,
            continueType: session.continueActivity ? "dev.baton.editing" : nil)
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
