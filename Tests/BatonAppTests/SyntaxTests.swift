import Foundation
import Testing
import TerminalUI
@testable import BatonApp

/// Issue 38: colours for code from nanorc-format syntax files, with a few compiled in.
@Suite("Syntax colours")
struct SyntaxTests {
    @Test("nanorc lines: syntax and its file expression, header, color and icolor, a quote inside an expression, start/end regions")
    func parsesNanorc() {
        let text = #"""
            ## a comment
            syntax demo "\.demo$" "(^|/)Demofile$"
            header "^#!.*demo"
            comment "#"
            color brightred "\<[A-Z]+\>"
            icolor green "\<(if|else)\>" "\<end\>"
            color yellow ""([^"]|\\")*""
            color bold,blue start="/\*" end="\*/"
            color ,green "[[:space:]]+$"
            color nosuchcolour "x"
            syntax other "\.other$"
            color cyan "y"
            """#
        let definitions = NanorcParser.definitions(in: text, source: "test")
        #expect(definitions.map(\.name) == ["demo", "other"])
        let demo = definitions[0]
        #expect(demo.fileExpressions == [#"\.demo$"#, #"(^|/)Demofile$"#])
        #expect(demo.headerExpressions == ["^#!.*demo"])
        #expect(demo.rules.count == 6)
        #expect(demo.rules[0] == .init(match: .pattern(#"\<[A-Z]+\>"#), style: Style(bold: true, foreground: .red), ignoresCase: false))
        #expect(demo.rules[1].ignoresCase && demo.rules[2].ignoresCase)
        #expect(demo.rules[3].match == .pattern(#""([^"]|\\")*""#))
        #expect(demo.rules[4] == .init(match: .region(start: #"/\*"#, end: #"\*/"#), style: Style(bold: true, foreground: .blue), ignoresCase: false))
        #expect(demo.rules[5].style == Style())
    }

    @Test("A line's colours: later rules paint over earlier ones; a region left open goes on at the next line")
    func coloursLines() throws {
        let definition = try #require(BuiltInSyntaxes.definitions.first { $0.name == "c" })
        let syntax = CompiledSyntax(definition)
        let first = syntax.colours(of: "int x = 42; /* one", startingIn: nil)
        #expect(first.spans.contains(.init(characters: 0..<3, style: Style(foreground: .green))))
        #expect(first.spans.contains(.init(characters: 8..<10, style: Style(foreground: .magenta))))
        #expect(first.spans.last == .init(characters: 12..<18, style: Style(bold: true, foreground: .blue)))
        let region = try #require(first.openRegion)
        #expect(syntax.openRegion(after: "int x = 42; /* one", startingIn: nil) == region)
        let second = syntax.colours(of: "two */ return", startingIn: region)
        #expect(second.openRegion == nil)
        #expect(second.spans.contains(.init(characters: 0..<6, style: Style(bold: true, foreground: .blue))))
        #expect(second.spans.contains(.init(characters: 7..<13, style: Style(foreground: .yellow))))
        // A string with an escaped quote is one string.
        let string = syntax.colours(of: #"s = "a\"b" + c;"#, startingIn: nil)
        #expect(string.spans.contains(.init(characters: 4..<10, style: Style(bold: true, foreground: .yellow))))
    }

    @Test("Every built-in syntax reads and compiles whole, and takes its files")
    func builtIns() {
        let library = SyntaxLibrary(definitions: BuiltInSyntaxes.definitions)
        for (file, name) in [
            ("main.c", "c"), ("x.h", "c"), ("App.swift", "swift"), ("run.py", "python"), ("build.sh", "sh"),
            ("README.md", "markdown"), ("package.json", "json"),
        ] {
            let syntax = library.syntax(forFileName: file, firstLine: nil)
            #expect(syntax?.name == name, "\(file)")
            let definition = BuiltInSyntaxes.definitions.first { $0.name == name }
            #expect(syntax?.rules.count == definition?.rules.count, "a rule of \(name) does not compile")
        }
        #expect(library.syntax(forFileName: "tool", firstLine: "#!/usr/bin/env python3")?.name == "python")
        #expect(library.syntax(forFileName: "notes.txt", firstLine: "plain") == nil)
        #expect(library.syntax(forFileName: nil, firstLine: "#!/bin/sh") == nil)
    }

    @Test("The user's nanorc files come first, then the system's, then the compiled-in ones")
    func userFirst() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-nanorc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data([#"syntax mine "\.c$""#, #"color red "x""#, ""].joined(separator: "\n").utf8)
            .write(to: folder.appendingPathComponent("mine.nanorc"))
        try Data("not a syntax file".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let library = SyntaxLibrary.load(folders: [folder.path, folder.path + "/missing"])
        #expect(library.syntax(forFileName: "a.c", firstLine: nil)?.name == "mine")
        #expect(library.syntax(forFileName: "a.swift", firstLine: nil)?.name == "swift")
        #expect(library.definitions.first?.source == folder.path + "/mine.nanorc")
        #expect(SyntaxLibrary.standardFolders(environment: ["HOME": "/home/a"]) == [
            "/home/a/.nano", "/home/a/.config/nano", "/usr/share/nano",
        ])
    }

    @Test("A C file on screen: the keyword is coloured; the colours survive a selection over them")
    func onScreen() {
        var model = Fixtures.editor("int main(void) {\n    return 0;\n}", filePath: "main.c", width: 40, height: 8)
        var frame = BatonApp.view(model).frame
        #expect(frame[x: 0, y: 1].style.foreground == .green, "int")
        #expect(frame[x: 4, y: 1].style.foreground == nil, "main")
        model.press(.modified(.right, .shift), .modified(.right, .shift))
        frame = BatonApp.view(model).frame
        #expect(frame[x: 0, y: 1].style.reverse && frame[x: 0, y: 1].style.foreground == .green)
    }

    @Test("With the memo, region starts kept between frames follow edits above them: every frame is the one drawn without it")
    func memoFollowsEdits() async {
        var lines: [String] = []
        for i in 0..<120 { lines.append(i % 7 == 0 ? "/* start \(i)" : i % 7 == 3 ? "end */ int \(i);" : "int v\(i) = \(i);") }
        var model = Fixtures.editor(lines.joined(separator: "\n"), filePath: "walk.c", width: 30, height: 12)
        let memo = ViewMemo()
        var generator = SeededGenerator(seed: 38)
        let keys: [Key] = [
            .down, .down, .up, .pageDown, .pageUp, .character("/"), .character("*"), .backspace, .enter, .end,
            .control("k"), .control("k"), .control("u"), .control("z"), .modified(.end, .control), .modified(.home, .control),
        ]
        for step in 0..<700 {
            if step % 25 == 0 { await Task.yield() }
            model.press(keys[Int(generator.next() % UInt64(keys.count))])
            let plain = BatonApp.view(model)
            let memoized = BatonApp.view(model, memo: memo)
            #expect(memoized.frame == plain.frame, "step \(step)")
            if memoized.frame != plain.frame { break }
            memo.recycle(memoized.frame)
        }
        let colours = BatonApp.view(model).frame
        #expect((0..<colours.height).contains { y in (0..<colours.width).contains { colours[x: $0, y: y].style.foreground == .blue } })
    }

    /// A C file of `count` lines, 30 × 12: `int OPEN_n;` every `every` lines, `int CLOSE_n; */`
    /// half-way between, `int vn;` elsewhere.
    static func regions(lines count: Int, every: Int, name: String) -> AppModel {
        var lines: [String] = []
        for i in 0..<count {
            lines.append(i % every == 0 ? "int OPEN_\(i);" : i % every == every / 2 ? "int CLOSE_\(i); */" : "int v\(i);")
        }
        return Fixtures.editor(lines.joined(separator: "\n"), filePath: name, width: 30, height: 12)
    }

    /// Replaces every `word` with `replacement`, as a person does (Ctrl-\, then all), from the
    /// top or from where the cursor is.
    static func replaceAll(_ word: String, with replacement: String, fromTop: Bool = true, in model: inout AppModel) {
        if fromTop { model.press(.modified(.home, .control)) }
        model.press(.control("\\"))
        model.type(word)
        model.press(.enter)
        model.type(replacement)
        model.press(.enter)
        model.type("a")
    }

    /// The frame drawn with `memo` is the one drawn without it; the frame goes back to the memo.
    static func expectSameFrame(_ model: AppModel, memo: ViewMemo, _ what: String) {
        let plain = BatonApp.view(model)
        let memoized = BatonApp.view(model, memo: memo)
        #expect(memoized.frame == plain.frame, "\(what)")
        memo.recycle(memoized.frame)
    }

    @Test("Changed lines further apart than the walk looks ahead at a time: the starts between them are kept, and every frame is the one drawn without the memo")
    func memoWithChangesFarApart() async {
        var model = Self.regions(lines: 700, every: 230, name: "apart.c")
        let memo = ViewMemo()
        model.press(.modified(.end, .control))
        Self.expectSameFrame(model, memo: memo, "before")
        // Each OPEN_, 230 lines apart (more than `SyntaxMemo.lookAhead`), starts a comment.
        #expect(230 > SyntaxMemo.lookAhead)
        Self.replaceAll("OPEN_", with: "/* ", in: &model)
        #expect(model.editorState.findResult == "replaced 4 occurrences")
        Self.expectSameFrame(model, memo: memo, "after, at the last replacement")
        for pass in ["paging up", "paging up again from the end"] {
            if pass != "paging up" {
                model.press(.modified(.end, .control))
                Self.expectSameFrame(model, memo: memo, "at the end again")
            }
            for step in 0..<60 {
                if step % 10 == 0 { await Task.yield() }
                model.press(.pageUp)
                Self.expectSameFrame(model, memo: memo, "\(pass), \(step)")
            }
        }
    }

    @Test("After replacing every match (lines changed here and there), the region starts kept below are reused only where they still hold")
    func memoAfterReplaceAll() async {
        var model = Self.regions(lines: 300, every: 9, name: "regions.c")
        let memo = ViewMemo()
        model.press(.modified(.end, .control))
        Self.expectSameFrame(model, memo: memo, "before")
        // OPEN_ becomes a comment's start: every region below changes.
        Self.replaceAll("OPEN_", with: "/* ", in: &model)
        #expect(model.editorState.findResult == "replaced 34 occurrences")
        Self.expectSameFrame(model, memo: memo, "after, at the last replacement")
        for step in 0..<30 {
            if step % 10 == 0 { await Task.yield() }
            model.press(.pageUp)
            Self.expectSameFrame(model, memo: memo, "paging up, \(step)")
        }
        // And back: CLOSE_ goes, so comments run on.
        Self.replaceAll("*/", with: "", fromTop: false, in: &model)
        model.press(.modified(.end, .control))
        Self.expectSameFrame(model, memo: memo, "after the second")
        let frame = BatonApp.view(model).frame
        #expect((0..<frame.width).contains { frame[x: $0, y: 5].style.foreground == .blue }, "the end is inside a comment")
    }
}
