import BatonRuntime
import Foundation
import HandoffTesting
import Logging
import Testing

/// `baton --log-file`: one line per event, with nothing from a peer that could act on whoever
/// reads the file on a terminal.
@Suite("The log file")
struct FileLogHandlerTests {
    @Test("Peer text in a message and in metadata reaches the file made visible, one line per event")
    func hostileLine() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("baton-log-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = Logger(label: "baton") { FileLogHandler(label: $0, path: path)! }
        logger.info("continued on \(HostileText.all)", metadata: ["peer": "\(HostileText.osc52)"])
        logger.warning("continue of \(HostileText.bidi) failed")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "", "two events, two lines:\n\(text)")
        #expect(HostileText.forbidden(in: text.replacingOccurrences(of: "\n", with: "")) == [])
        #expect(lines[0].hasSuffix(" info baton: continued on ␛]52;c;ZXZpbA==␇|␛[2J|<U+009B>31m|a␀b|x␡|abc<U+202E>fed<U+202C>"
            + "<U+2066><U+2069><U+200E><U+200F><U+061C>|one<U+2028>two<U+2029>|al<U+200B>i<U+200C>c<U+200D>e<U+2060>"
            + "<U+2061><U+2064><U+FEFF><U+00AD>|ok<U+E0001><U+E0041><U+E0042><U+E007F>|<U+3164><U+115F><U+1160><U+FFA0>|"
            + "<U+FE0F>a<U+FE0F>b<U+FE00> peer=␛]52;c;ZXZpbA==␇"))
        #expect(lines[1].hasSuffix(" warning baton: continue of abc<U+202E>fed<U+202C><U+2066><U+2069><U+200E><U+200F><U+061C> failed"))
    }

    @Test("A line break in a message stays in its line, as ␊")
    func lineBreak() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("baton-log-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = Logger(label: "baton") { FileLogHandler(label: $0, path: path)! }
        logger.info("forged\n2026-01-01T00:00:00.000Z info baton: exit")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix(" [\(getpid())] info baton: forged␊2026-01-01T00:00:00.000Z info baton: exit\n"),
                "the time, this process's id, the level, the label, the message:\n\(text)")
        #expect(text.filter { $0 == "\n" }.count == 1)
    }
}
