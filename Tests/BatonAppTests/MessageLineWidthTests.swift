import Testing
import TerminalUI
@testable import BatonApp

@Suite("The keys' line at every width")
struct MessageLineWidthTests {
    @Test("Each list of keys draws its first text that fits, else its last one cut with …, at widths 0 to 90")
    func firstFittingAtEveryWidth() {
        let lists = [MessageLine.editorHelp, MessageLine.counterHelp, MessageLine.nearbyHelp, MessageLine.continuingHelp]
        for candidates in lists {
            for width in 0...90 {
                var drawn = ScreenBuffer(width: width, height: 2)
                MessageLine.putFirstFitting(candidates, row: 1, into: &drawn, style: Style(dim: true))
                let text = candidates.first { $0.columns <= width } ?? candidates.last!
                var expected = ScreenBuffer(width: width, height: 2)
                expected.putTruncated(text, x: 0, y: 1, width: width, style: Style(dim: true))
                #expect(drawn == expected, "width \(width): \(drawn.line(at: 1))")
            }
        }
    }
}
