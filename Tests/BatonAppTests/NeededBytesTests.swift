import Foundation
import Testing
@testable import BatonApp

/// The bytes one of which every match of a syntax rule holds (`NeededBytes`): a line without
/// any is not given to `regexec`, so a wrong set would leave text uncoloured.
@Suite("The bytes a syntax rule's match needs")
struct NeededBytesTests {
    static func set(_ text: String) -> ByteSet { ByteSet(Array(text.utf8)) }

    @Test("What a match needs, read from expressions of each kind")
    func reads() {
        let cases: [(String, Bool, ByteSet?)] = [
            ("//.*", false, Self.set("/")),
            (#"/\*"#, false, Self.set("/")),
            (#""([^"]|\\")*"|#[[:blank:]]*include"#, false, Self.set("\"#")),
            (#"\<(if|else|for)\>"#, false, Self.set("ief")),
            (#"\<(FIXME|TODO|XXX)\>"#, false, Self.set("FTX")),
            ("abc", true, Self.set("aA")),
            ("x{2,3}", false, Self.set("x")),
            (":[[:blank:]]*$", false, Self.set(":")),
            ("[[:space:]]+$", false, ByteSet([0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D])),
            (#"'([^'\]|\\.)+'"#, false, Self.set("'")),
            (#"\<[A-Z_][0-9A-Z_]*\>"#, false, ByteSet(UInt8(ascii: "A")...UInt8(ascii: "Z")).union(Self.set("_"))),
            ("[^a]", false, Self.set("a").complement),
            ("[]a-]", false, Self.set("]a-")),
            // A match may be empty, or this reader does not follow the expression: nil.
            ("a*", false, nil),
            ("(a|)", false, nil),
            ("x{0,3}", false, nil),
            (#"(a)\1"#, false, nil),
            (#"\1"#, false, nil),
            ("[[=a=]]", false, nil),
            ("^$", false, nil),
            ("", false, nil),
            (#"\n"#, false, nil),
            ("a{,2}", false, nil),
            ("(ab", false, nil),
            ("ab)", false, nil),
            ("*a", false, nil),
        ]
        for (expression, ignoresCase, expected) in cases {
            #expect(NeededBytes.of(expression, ignoresCase: ignoresCase) == expected, "\(expression)")
        }
    }

    /// Every rule of the built-in syntaxes and, when this machine has them, of nano's own files.
    static func expressions() -> [(String, Bool)] {
        var definitions = BuiltInSyntaxes.definitions
        let folder = "/usr/share/nano"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for name in names.sorted() where name.hasSuffix(".nanorc") {
                guard let text = try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8) else { continue }
                definitions += NanorcParser.definitions(in: text, source: name)
            }
        }
        return definitions.flatMap { definition in
            definition.rules.flatMap { rule -> [(String, Bool)] in
                switch rule.match {
                case .pattern(let expression): [(expression, rule.ignoresCase)]
                case .region(let start, let end): [(start, rule.ignoresCase), (end, rule.ignoresCase)]
                }
            }
        }
    }

    /// Lines of code in each built-in syntax's language, each also cut short at every length and
    /// with every one of its characters left out in turn, and lines of random bytes.
    static func lines() -> [String] {
        let code = [
            #"#include <stdio.h>"#, #"  # define LIMIT 10"#, #"int main(void) { return 0; } // done"#,
            #"static const char *s = "a \"quoted\" word";"#, #"/* open"#, #"close */ x = 'c';"#,
            #"label:"#, #"  uint32_t count = 0x1F; // TODO: FIXME"#, #"__attribute__((packed)) struct s;"#,
            #"func f(_ x: Int) async throws -> [String] { @MainActor let y = nil }"#,
            #"def f(x): return x if x else None  # comment"#, #"x = r'''raw''' + b"bytes""#,
            #"if [ -n "$HOME" ]; then echo ${PATH}; fi"#, #"## A heading with **bold** and `code`"#,
            #"  - [a link](http://example.org) > quote"#, #"{"key": [1, 2.5e-3, true, null], "é": "ü"}"#,
            "\ttrailing space \t", "plain words only", "BEGIN the first line", "", "   ", "é ü ✓ 日本",
        ]
        var lines: [String] = []
        for line in code {
            let characters = Array(line)
            lines.append(line)
            for length in 0..<characters.count { lines.append(String(characters[..<length])) }
            for index in characters.indices {
                var cut = characters
                cut.remove(at: index)
                lines.append(String(cut))
            }
        }
        var generator = SeededGenerator(seed: 38)
        let alphabet = Array(#" \t abcxyzABCXYZ019_:;#/*"'`\<>()[]{}$@!-+=.,|&é"#)
        for _ in 0..<500 {
            let count = Int(generator.next() % 24)
            lines.append(String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
        }
        return lines
    }

    @Test("A line screened out for lacking the bytes a rule needs has no match of it")
    func screeningKeepsMatches() throws {
        let expressions = Self.expressions()
        let lines = Self.lines()
        let present = lines.map { ByteSet(Array($0.utf8)) }
        #expect(expressions.count > 30 && lines.count > 1_500)
        var screenedRules = 0
        var screenedLines = 0
        for (expression, ignoresCase) in expressions {
            let options = SearchOptions(caseSensitive: !ignoresCase, regularExpression: true)
            guard let needed = NeededBytes.of(expression, ignoresCase: ignoresCase),
                  let plain = try? TextPattern(expression, options: options, byteWise: true, screensLines: false)
            else { continue }
            screenedRules += 1
            for (line, bytes) in zip(lines, present) where !bytes.intersects(needed) {
                screenedLines += 1
                var prepared = TextPattern.PreparedLine(line)
                var groups = [regmatch_t](repeating: regmatch_t(), count: 1)
                if let match = plain.firstByteMatch(in: &prepared, fromByte: 0, groups: &groups) {
                    Issue.record("\(expression) matches \(line.debugDescription) at \(match.range) without any of its needed bytes")
                }
            }
        }
        // Most rules are screened, and most lines for each: those that are not are matched as before.
        #expect(screenedRules * 2 > expressions.count, "\(screenedRules) of \(expressions.count)")
        #expect(screenedLines > screenedRules * lines.count / 4, "\(screenedLines)")
        print("NeededBytesTests: \(screenedRules) of \(expressions.count) rules screened; \(screenedLines) lines screened out")
    }

    @Test("A pattern compiled for colours skips a line without its bytes, and finds the match in one with them")
    func patternScreens() throws {
        let options = SearchOptions(caseSensitive: true, regularExpression: true)
        let comment = try TextPattern("//.*", options: options, byteWise: true)
        #expect(comment.needed == ByteSet(Array("/".utf8)))
        var plain = TextPattern.PreparedLine("int x = 1;")
        var groups = [regmatch_t](repeating: regmatch_t(), count: 1)
        #expect(comment.firstByteMatch(in: &plain, fromByte: 0, groups: &groups) == nil)
        var commented = TextPattern.PreparedLine("int x = 1; // one")
        #expect(comment.firstByteMatch(in: &commented, fromByte: 0, groups: &groups)?.range == 11..<17)
        // A search (not byte-wise) is never screened.
        #expect(try TextPattern("//.*", options: options).needed == nil)
    }
}
