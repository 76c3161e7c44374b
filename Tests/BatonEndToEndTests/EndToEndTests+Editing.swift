import Foundation
import Testing

extension EndToEndTests {
    @Test("An edit with accents, CJK and emoji continues on h2 with the same text and the cursor in the same place")
    func editContinuesWithTextAndCursor() throws {
        let first = "héllo 你好 👋"
        try Stage.run(hosts: 3) { stage in
            let a = try stage.baton("a", on: 1, ["edit", "--name", "e2e-a"])
            try a.waitForScreen(containing: "(unnamed)")
            // The cursor's position in the title (Alt-C), which travels with the session too.
            try a.press("M-c")
            try a.waitForScreen(containing: "cursor position shown")
            try a.type(first)
            try a.press("Enter")
            try a.type("wörld")
            try a.press("Left")
            try a.press("Left")
            // The title shows the cursor: line 2, after "wör".
            let screenA = try a.waitForScreen("a's text and cursor") { lines in
                lines.count > 2 && lines[1] == first && lines[2] == "wörld" && lines[0].contains("Ln 2, Col 4")
            }
            let published = try stage.listener.waitForEvent("e2e-a's text and cursor") {
                $0.peerName == "e2e-a" && $0.type == "dev.baton.editing" && $0.string("text") == "\(first)\nwörld"
                    && $0.int("cursorLine") == 1 && $0.int("cursorColumn") == 3
            }
            #expect(published.string("text") == "\(first)\nwörld")
            let cursorA = try a.cursor()
            #expect(cursorA.x == 3 && cursorA.y == 2, "a's cursor is at \(cursorA)")

            let b = try stage.baton("b", on: 2, [
                "--continue-activity", "dev.baton.editing", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
            ])
            let screenB = try b.waitForScreen("b's text and cursor") { lines in
                lines.count > 2 && lines[1] == first && lines[2] == "wörld" && lines[0].contains("Ln 2, Col 4")
            }
            #expect(Array(screenB[1..<(screenB.count - 2)]) == Array(screenA[1..<(screenA.count - 2)]),
                "the text area differs:\n\(b.screenDump())")
            try b.waitForScreen(containing: "from e2e-a")
            let cursorB = try b.cursor()
            #expect(cursorB.x == cursorA.x && cursorB.y == cursorA.y, "b's cursor is at \(cursorB), a's at \(cursorA)")

            // Typing goes where the cursor is: between "wör" and "ld".
            try b.type("X")
            try b.waitForScreen("b's second line to be wörXld") { $0.count > 2 && $0[2] == "wörXld" }
            try stage.listener.waitForEvent("e2e-b's edited text") {
                $0.peerName == "e2e-b" && $0.string("text") == "\(first)\nwörXld" && $0.int("cursorColumn") == 4
            }
            try a.waitForScreen(containing: "Continued on e2e-b")
        }
    }

    @Test("A selection, a case-sensitive search, line numbers and the cursor's position made on h1 arrive on h2 with the text (issue 38): F3 there finds the next match, Ctrl-K cuts the selection")
    func selectionAndSearchTravel() throws {
        try Stage.run(hosts: 2) { stage in
            let a = try stage.baton("a", on: 1, ["edit", "--name", "e2e-a"])
            try a.waitForScreen(containing: "(unnamed)")
            try a.type("Alpha alpha ALPHA alpha")
            // A case-sensitive search for "alpha": Ctrl-F, Alt-C in the prompt, Enter.
            try a.press("C-f")
            try a.waitForScreen(containing: "Search")
            try a.press("M-c")
            try a.waitForScreen(containing: "[Case Sensitive]")
            try a.type("alpha")
            try a.press("Enter")
            try a.waitForScreen(containing: "1 of 2")
            // Line numbers and the cursor's position on, and "alpha" (at column 7) selected with Shift.
            try a.press("M-n")
            try a.press("M-c")
            try a.waitForScreen(containing: "cursor position shown")
            for _ in 0..<5 { try a.press("S-Right") }
            try stage.listener.waitForEvent("e2e-a's selection and search") {
                $0.peerName == "e2e-a" && $0.int("markColumn") == 6 && $0.int("cursorColumn") == 11
                    && $0.string("searchText") == "alpha" && $0.bool("searchCaseSensitive") == true
                    && $0.bool("lineNumbers") == true && $0.bool("constantShow") == true
            }
            let b = try stage.baton("b", on: 2, [
                "--continue-activity", "dev.baton.editing", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
            ])
            try b.waitForScreen("b shows line numbers") { $0.count > 1 && $0[1].hasPrefix("1 Alpha") }
            // The selection came too: Ctrl-K cuts exactly it.
            try b.press("C-k")
            try b.waitForScreen("the selection cut on b") { $0.count > 1 && $0[1] == "1 Alpha  ALPHA alpha" }
            // And the search: F3 finds the next "alpha" by case, past "ALPHA".
            try b.press("F3")
            try b.waitForScreen(containing: "1 of 1")
            try b.waitForScreen(containing: "Ln 1, Col 14")
        }
    }
}
