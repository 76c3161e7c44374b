import Foundation
import HandoffTesting
import Testing
@testable import Handoff
@testable import PropertyList
@testable import HandoffWire

/// Shorter names in these tests.
typealias Hostile = HostileText

@Suite("Peer text made visible")
struct PeerTextTests {
    @Test("Escape sequences lose their ESC, BEL, NUL and DEL to control pictures; C1 becomes <U+XXXX>")
    func escapes() {
        #expect(PeerText.visible(Hostile.osc52) == "␛]52;c;ZXZpbA==␇")
        #expect(PeerText.visible(Hostile.csi) == "␛[2J")
        #expect(PeerText.visible(Hostile.csi8bit) == "<U+009B>31m")
        #expect(PeerText.visible(Hostile.nul) == "a␀b")
        #expect(PeerText.visible(Hostile.del) == "x␡")
        #expect(PeerText.visible("\u{9D}0;title\u{9C}") == "<U+009D>0;title<U+009C>")
    }

    @Test("Bidi controls and line separators are shown as <U+XXXX>")
    func bidiAndSeparators() {
        #expect(PeerText.visible(Hostile.bidi)
            == "abc<U+202E>fed<U+202C><U+2066><U+2069><U+200E><U+200F><U+061C>")
        #expect(PeerText.visible(Hostile.separators) == "one<U+2028>two<U+2029>")
    }

    @Test("Invisible characters, tags and Hangul fillers are shown")
    func invisibles() {
        #expect(PeerText.visible(Hostile.invisibles)
            == "al<U+200B>i<U+200C>c<U+200D>e<U+2060><U+2061><U+2064><U+FEFF><U+00AD>")
        #expect(PeerText.visible(Hostile.tags) == "ok<U+E0001><U+E0041><U+E0042><U+E007F>")
        #expect(PeerText.visible(Hostile.hangulFillers) == "<U+3164><U+115F><U+1160><U+FFA0>")
        #expect(PeerText.visible("\u{034F}\u{180E}\u{FFF9}\u{2065}") == "<U+034F><U+180E><U+FFF9><U+2065>")
        // Noncharacters and private use (a literal may not hold a noncharacter).
        let odd = String(String.UnicodeScalarView([0xFDD0, 0xFFFF, 0xE000, 0x10FFFD].map { Unicode.Scalar($0)! }))
        #expect(PeerText.visible(odd) == "<U+FDD0><U+FFFF><U+E000><U+10FFFD>")
    }

    @Test("Variation selectors are shown where they stand alone, kept where they select")
    func variationSelectors() {
        #expect(PeerText.visible(Hostile.loneSelectors) == "<U+FE0F>a<U+FE0F>b<U+FE00>")
        #expect(PeerText.visible("❤\u{FE0F}\u{FE0F}") == "❤\u{FE0F}<U+FE0F>")
        #expect(PeerText.visible("\u{200B}\u{FE0F}") == "<U+200B><U+FE0F>")
        let selected = "❤\u{FE0F} ☺\u{FE0E} 1\u{FE0F}\u{20E3} 葛\u{E0100} ≩\u{FE00}"
        #expect(PeerText.visible(selected) == selected)
    }

    @Test("ZWJ stays between emoji and is shown anywhere else")
    func zeroWidthJoiner() {
        let emoji = "👨\u{200D}👩\u{200D}👧 👩🏽\u{200D}💻 🏳\u{FE0F}\u{200D}🌈 ❤\u{FE0F}\u{200D}🔥"
        #expect(PeerText.visible(emoji) == emoji)
        #expect(PeerText.visible("a\u{200D}b") == "a<U+200D>b")
        #expect(PeerText.visible("👨\u{200D}") == "👨<U+200D>")
        #expect(PeerText.visible("\u{200D}👨") == "<U+200D>👨")
        #expect(PeerText.visible("1\u{200D}2") == "1<U+200D>2")
        #expect(PeerText.visible("a\u{FE0F}\u{200D}👨") == "a<U+FE0F><U+200D>👨", "after a selector that was shown")
    }

    @Test("Ordinary text passes unchanged: accents, CJK, RTL letters, combining marks, spaces")
    func ordinaryText() {
        let text = "你好，wörld e\u{301} שלום مرحبا naïve café\u{00A0}bar ①"
        #expect(PeerText.visible(text) == text)
        #expect(PeerText.visible("alice@laptop") == "alice@laptop")
    }

    @Test("Nothing with a hazard survives, across the BMP and the tags, and the result is its own visible form")
    func nothingSurvives() {
        var all = String.UnicodeScalarView()
        for value in Array(UInt32(0)...0xFFFF) + Array(0xE0000...0xE0FFF) {
            if let scalar = Unicode.Scalar(value) { all.append(scalar) }
        }
        let shown = PeerText.visible(String(all))
        let left = shown.unicodeScalars.filter { PeerText.hazard(of: $0) != nil }
        // Only selectors right after a character they select for, and no ZWJ (no two emoji are adjacent here).
        #expect(left.allSatisfy { $0.properties.isVariationSelector })
        #expect(!shown.utf8.contains { $0 < 0x20 || $0 == 0x7F })
        #expect(!shown.unicodeScalars.contains {
            let category = $0.properties.generalCategory
            return category == .control || category == .lineSeparator || category == .paragraphSeparator
                || $0.properties.isBidiControl
        })
        #expect(PeerText.visible(shown) == shown)
    }

    @Test("The blocks answered without a property lookup agree with the properties, across the BMP (where they all are)")
    func fastPathAgrees() {
        var disagreements: [String] = []
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if PeerText.hazard(of: scalar) != PeerText.classify(scalar) { disagreements.append(String(value, radix: 16)) }
        }
        #expect(disagreements == [])
    }

    @Test("Hazards: the control, bidi, separator and invisible sets")
    func hazards() {
        for value: UInt32 in Array(0...0x1F) + [0x7F] + Array(0x80...0x9F) {
            #expect(PeerText.hazard(of: Unicode.Scalar(value)!) == .control)
        }
        for value: UInt32 in [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069] {
            #expect(PeerText.hazard(of: Unicode.Scalar(value)!) == .bidiControl)
        }
        #expect(PeerText.hazard(of: "\u{2028}") == .separator)
        #expect(PeerText.hazard(of: "\u{2029}") == .separator)
        let invisible: [UInt32] = [
            0x00AD, 0x034F, 0x115F, 0x1160, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064,
            0x3164, 0xFE00, 0xFE0F, 0xFEFF, 0xFFA0, 0xE0001, 0xE0020, 0xE007F, 0xE0100, 0xFDD0, 0xFFFE, 0xE000, 0xF8FF,
        ]
        for value in invisible { #expect(PeerText.hazard(of: Unicode.Scalar(value)!) == .invisible, "U+\(String(value, radix: 16))") }
        for scalar in "a Z~ é中😀\u{301}\u{00A0}\u{3000}€".unicodeScalars { #expect(PeerText.hazard(of: scalar) == nil) }
    }

    @Test("A peer's strings in an error sentence are made visible")
    func errorDescriptions() {
        let errors: [HandoffError] = [
            .missingRequiredKeys(type: "dev.x" + Hostile.osc52, keys: [Hostile.all, "count"]),
            .undeclaredType(type: Hostile.bidi, declared: ["dev.baton.counter"]),
            .schemaViolation(type: Hostile.tags, key: Hostile.invisibles, expected: .integer, actual: .string),
            .transferFailed(peer: Hostile.hangulFillers, reason: StreamFailure.refused(code: 2, message: Hostile.csi8bit).description),
            .invalidWebpageURL("http://x/" + Hostile.separators),
            .expired(type: Hostile.nul, at: Date(timeIntervalSince1970: 0)),
            .invalidated(type: Hostile.del), .declined(type: Hostile.csi),
            .notFound(type: Hostile.osc52, peer: Hostile.invisibles, waited: .seconds(2), endpoint: "239.255.77.88:47788"),
        ]
        for error in errors {
            #expect(Hostile.forbidden(in: error.description) == [], "\(error.description)")
        }
        #expect(errors[0].description.contains("'␛]52;c;ZXZpbA==␇|"))
        #expect(errors[1].description.contains("'abc<U+202E>fed"))
        #expect(errors[3].description.contains("from <U+3164><U+115F><U+1160><U+FFA0>: "))
        #expect(errors[3].description.contains("<U+009B>31m"))
        // The case keeps the text as it came: the error is still equal to itself, unchanged.
        #expect(errors[0] == .missingRequiredKeys(type: "dev.x" + Hostile.osc52, keys: [Hostile.all, "count"]))
    }
}

@Suite("JSON carries no raw hazard")
struct PeerTextJSONTests {
    @Test("Every hazard is escaped as \\uXXXX, and the value reads back exactly")
    func roundTrip() throws {
        let value: PropertyListValue = .dictionary([
            Hostile.all: .string(Hostile.all),
            "nested": .array([.string(Hostile.osc52), .dictionary([Hostile.tags: .string(Hostile.hangulFillers)])]),
            "emoji": .string("👨\u{200D}👩\u{200D}👧 ❤\u{FE0F}"),
            "plain": .string("café 你好 \"quoted\" back\\slash"),
        ])
        let json = value.jsonText
        #expect(Hostile.forbidden(in: json) == [])
        #expect(!json.contains("\n"))
        #expect(json.contains(#"\u202E"#) && json.contains(#"\u009B"#) && json.contains(#"\u007F"#))
        #expect(json.contains(#"\u2028"#) && json.contains(#"\u200B"#) && json.contains(#"\u3164"#))
        #expect(json.contains(#"\uDB40\uDC41"#), "a tag above U+FFFF as a surrogate pair")
        #expect(json.contains("café 你好"), "safe text beyond ASCII stays as it is")
        let back = try PropertyListValue(json: Data(json.utf8))
        #expect(back == value)
    }

    @Test("A bare string is escaped too")
    func bareString() throws {
        let json = PropertyListValue.string(Hostile.all).jsonText
        #expect(Hostile.forbidden(in: json) == [])
        let decoded = try JSONDecoder().decode(String.self, from: Data(json.utf8))
        #expect(decoded == Hostile.all)
    }
}

@Suite("Look-alike peer names")
struct PeerNameTests {
    static let alice = SenderID(bytes: [0x3F, 0xA2] + Array(repeating: 0x11, count: 14))!
    static let eve = SenderID(bytes: [0x91, 0xC0] + Array(repeating: 0x22, count: 14))!
    static let bob = SenderID(bytes: Array(repeating: 0x33, count: 16))!

    @Test("Skeletons fold case, width, diacritics, compatibility forms and invisibles")
    func skeletons() {
        let base = PeerText.skeleton("alice@laptop")
        for name in [
            "Alice@Laptop", "alicé@laptop", "ａｌｉｃｅ@laptop", "al\u{200B}ice@laptop", "alice@lap\u{3164}top",
            "\u{202E}alice@laptop", "alice@laptop\u{E0041}", "alice@laptop ", "ali\u{0063}\u{0301}e@laptop",
        ] {
            #expect(PeerText.skeleton(name) == base, "\(PeerText.visible(name))")
        }
        #expect(PeerText.skeleton("bob@desk") != base)
        #expect(PeerText.skeleton("alice  bob") == PeerText.skeleton("alice\u{00A0}bob"))
    }

    @Test("A name that imitates another sender's gets the start of its sender ID, and so does the imitated one")
    func labels() {
        let labels = PeerText.nameLabels([
            ("alice@laptop", Self.alice), ("al\u{200B}ice@laptop", Self.eve), ("bob@desk", Self.bob),
        ])
        #expect(labels == ["alice@laptop #3fa2", "al<U+200B>ice@laptop #91c0", "bob@desk"])
    }

    @Test("Two senders with the very same name are told apart; one sender with two activities is not")
    func sameName() {
        #expect(PeerText.nameLabels([("Alice", Self.alice), ("alice", Self.eve)]) == ["Alice #3fa2", "alice #91c0"])
        #expect(PeerText.nameLabels([("alice", Self.alice), ("alice", Self.alice)]) == ["alice", "alice"])
    }

    @Test("Sender IDs that share a prefix get as many digits as tell them apart")
    func longerPrefix() {
        let a = SenderID(bytes: [0x3F, 0xA2, 0x10] + Array(repeating: 0, count: 13))!
        let b = SenderID(bytes: [0x3F, 0xA2, 0x1F] + Array(repeating: 0, count: 13))!
        #expect(PeerText.nameLabels([("alice", a), ("alice", b)]) == ["alice #3fa210", "alice #3fa21f"])
    }
}
