import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The syntaxes the editor colours text with: the user's nanorc files (`~/.nano/` and
/// `~/.config/nano/`), then the system's (`/usr/share/nano/`), then the few compiled in (C,
/// Swift, Python, shell, Markdown, JSON). The first whose file expression matches a file's
/// name (or whose `header` matches its first line) is the file's; so a definition of the
/// user's wins over the system's of the same files, and both over Baton's own.
public final class SyntaxLibrary: Sendable {
    /// The definitions in the order they are tried.
    public let definitions: [SyntaxDefinition]
    private let compiled = Mutex<[String: CompiledSyntax]>([:])
    /// Each definition's file and header expressions compiled (on the first lookup), and the
    /// answers given so far by file name and first line.
    private let lookup = Mutex<Lookup>(Lookup())

    private struct Lookup {
        var matchers: [(files: [TextPattern], headers: [TextPattern])]?
        /// The definition each file name matched, and each first line (for names none matched).
        var byName: [String: Int?] = [:]
        var byHeader: [String: Int?] = [:]
    }

    public init(definitions: [SyntaxDefinition]) {
        self.definitions = definitions
    }

    /// The folders read, in order: the user's, then the system's.
    public static func standardFolders(environment: [String: String]) -> [String] {
        var folders: [String] = []
        if let home = environment["HOME"], !home.isEmpty {
            folders.append(home + "/.nano")
            folders.append((environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config") + "/nano")
        }
        folders.append("/usr/share/nano")
        return folders
    }

    /// The definitions in the `*.nanorc` files of `folders` (each folder's files by name),
    /// then the compiled-in ones. A folder or file that cannot be read is passed over.
    public static func load(folders: [String]) -> SyntaxLibrary {
        var definitions: [SyntaxDefinition] = []
        for folder in folders {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                .filter { $0.hasSuffix(".nanorc") }.sorted()
            for name in names {
                let path = folder + "/" + name
                guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20,
                      let text = String(validating: data, as: UTF8.self) else { continue }
                definitions += NanorcParser.definitions(in: text, source: path)
            }
        }
        definitions += BuiltInSyntaxes.definitions
        return SyntaxLibrary(definitions: definitions)
    }

    /// The library of this process's environment, read once when first asked for
    /// (`BATON_NANORC_FOLDERS`, colon-separated, replaces the standard folders; empty: none).
    public static let standard: SyntaxLibrary = {
        let environment = ProcessInfo.processInfo.environment
        let folders = environment["BATON_NANORC_FOLDERS"].map { $0.split(separator: ":").map(String.init) }
            ?? standardFolders(environment: environment)
        return load(folders: folders)
    }()

    /// The syntax for a file named `fileName` (its base name or path) whose first line is
    /// `firstLine`, compiled; nil when none applies (the text is drawn plain). A text without
    /// a name has none, as a new buffer in nano. The name is tried against every definition
    /// first, then the first line (`header`), so `x.sh` is shell whatever its first line says.
    func syntax(forFileName fileName: String?, firstLine: String?) -> CompiledSyntax? {
        guard let fileName else { return nil }
        let found: Int? = lookup.withLock { lookup in
            let matchers = lookup.matchers ?? definitions.map { definition in
                (definition.fileExpressions.compactMap(Self.pattern), definition.headerExpressions.compactMap(Self.pattern))
            }
            lookup.matchers = matchers
            let byName: Int?
            if let answer = lookup.byName[fileName] {
                byName = answer
            } else {
                byName = matchers.firstIndex { $0.files.contains { $0.firstMatch(in: fileName) != nil } }
                if lookup.byName.count > 256 { lookup.byName.removeAll() }
                lookup.byName[fileName] = byName
            }
            if let byName { return byName }
            guard let firstLine = firstLine.map({ String($0.utf8.prefix(256)) ?? "" }), !firstLine.isEmpty else { return nil }
            if let answer = lookup.byHeader[firstLine] { return answer }
            let byHeader = matchers.firstIndex { $0.headers.contains { $0.firstMatch(in: firstLine) != nil } }
            if lookup.byHeader.count > 256 { lookup.byHeader.removeAll() }
            lookup.byHeader[firstLine] = byHeader
            return byHeader
        }
        guard let found else { return nil }
        let definition = definitions[found]
        guard definition.name != "none", definition.name != "default" else { return nil }
        let key = definition.source + "\u{0}" + definition.name
        return compiled.withLock { cache in
            if let syntax = cache[key] { return syntax }
            let syntax = CompiledSyntax(definition)
            cache[key] = syntax
            return syntax
        }
    }

    private static func pattern(_ expression: String) -> TextPattern? {
        try? TextPattern(expression, options: SearchOptions(caseSensitive: true, regularExpression: true))
    }
}
