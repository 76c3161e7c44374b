import Foundation
import Testing

extension EndToEndTests {
    @Test("--continue-activity with nobody nearby exits 1 with one line naming type, endpoint, interface and wait, terminal untouched")
    func continueWithNothingNearby() throws {
        try Stage.run(hosts: 2) { stage in
            // Wide enough that the message is one row on screen too.
            let b = try stage.baton("b", on: 1, ["--continue-activity", "dev.baton.counter", "--wait", "1"], width: 200)
            try b.expectExit(1, timeout: 10)
            let lines = try b.capture()
            let printed = lines.dropFirst().filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            #expect(lines.first == "e2e: b", "the banner before baton was cleared:\n\(b.screenDump())")
            #expect(printed.count == 1, "want one line after the banner:\n\(b.screenDump())")
            let message = printed.first ?? ""
            for part in ["dev.baton.counter", "\(E2E.group):\(E2E.port)", "v0"] {
                #expect(message.contains(part), "the message does not name \(part): \(message)")
            }
            #expect(message.range(of: #"\b1(\.0+)? ?(s|sec|second)"#, options: .regularExpression) != nil,
                "the message does not give the 1 s wait: \(message)")

            let settings = try b.settings()
            #expect(settings.after == settings.before, "stty -g differs after baton")
            #expect(try b.query("#{alternate_on} #{cursor_flag} #{keypad_flag}") == "0 1 0")
            let cursor = try b.cursor()
            #expect(cursor.x == 0 && cursor.y == 2, "cursor at \(cursor), want the start of the row after the message")
        }
    }
}
