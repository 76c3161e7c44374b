import ArgumentParser
import HandoffCLI
import Testing

@Suite("baton --help")
struct BatonHelpTests {
    /// A command with the overview, as `baton` has it.
    struct Shown: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "baton", abstract: "Handoff.", discussion: BatonHelp.overview)
    }

    @Test("At 80 columns every line of the quick reference is shown whole, on one line")
    func quickReferenceFits() throws {
        let reference = try #require(BatonHelp.overview.range(of: "\n\n")).upperBound
        let lines = BatonHelp.overview[reference...].split(separator: "\n").map(String.init)
        #expect(lines.count > 10)
        for line in lines {
            #expect(line.count <= BatonHelp.quickReferenceColumns, "\(line.count) columns: \(line)")
        }
        let shown = Set(Shown.helpMessage(columns: 80).split(separator: "\n").map(String.init))
        for line in lines {
            #expect(shown.contains(line), "broken across lines at 80 columns: \(line)")
        }
    }
}
