import Testing
import TerminalUI

@Suite("Whole-screen assertions")
struct ScreenAssertionTests {
    @Test("Equal screens pass")
    func equal() throws {
        var buffer = ScreenBuffer(width: 6, height: 2)
        buffer.put("Count:", x: 0, y: 0)
        buffer.put("你好", x: 0, y: 1)
        try buffer.assertLines(["Count:", "你好  "])
        #expect(ScreenMismatch.compare(actual: buffer.lines(), expected: ["Count:", "你好  "]) == nil)
    }

    @Test("A differing row is reported with both versions and a caret at the first different column")
    func differingRow() throws {
        var buffer = ScreenBuffer(width: 6, height: 2)
        buffer.put("Count:", x: 0, y: 0)
        buffer.put("你好 3", x: 0, y: 1)
        let error = #expect(throws: ScreenMismatch.self) {
            try buffer.assertLines(["Count:", "你好 4"])
        }
        let mismatch = try #require(error)
        #expect(mismatch == .rowsDiffer(rows: [1], expected: ["Count:", "你好 4"], actual: ["Count:", "你好 3"]))
        let report = mismatch.description
        #expect(report.contains("row 1 expected: \"你好 4\""))
        #expect(report.contains("row 1 actual:   \"你好 3\""))
        #expect(report.contains("^ column 5"))
        #expect(report.contains("   1 │你好 3│"))
    }

    @Test("A different number of rows is its own mismatch")
    func rowCount() {
        let mismatch = ScreenMismatch.compare(actual: ["a", "b"], expected: ["a"])
        #expect(mismatch == .rowCountDiffers(expected: ["a"], actual: ["a", "b"]))
        #expect(mismatch?.description.hasPrefix("screen has 2 rows, expected 1") == true)
    }

    @Test("Trailing spaces count")
    func trailingSpaces() {
        #expect(ScreenMismatch.compare(actual: ["ab  "], expected: ["ab"]) != nil)
    }
}
