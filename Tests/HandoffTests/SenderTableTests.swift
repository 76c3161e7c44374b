import Foundation
import Testing
@testable import Handoff
@testable import HandoffWire

/// The anti-replay window of PROTOCOL.md section 7, step 12: a sequence above the highest is
/// new, one up to 63 below it is new until accepted, and one 64 or more below is a replay.
@Suite("Sender table: the window")
struct SenderTableTests {
    let sender = Fixtures.sender(3)
    let address = "192.0.2.7:47788"
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A table that accepted `sequences` from `sender`, in that order.
    func table(accepting sequences: [UInt64]) -> SenderTable {
        var table = SenderTable()
        for sequence in sequences { table.accept(sender: sender, sequence: sequence, source: address, at: t0) }
        return table
    }

    func verdict(_ table: SenderTable, _ sequence: UInt64) -> SenderTable.Verdict {
        table.verdict(sender: sender, sequence: sequence, at: t0)
    }

    @Test("Up to 63 below the highest a sequence not yet accepted is new; 64 below is a replay")
    func edges() {
        let table = table(accepting: [100])
        #expect(verdict(table, 101) == .fresh)
        #expect(verdict(table, 100) == .duplicate, "the highest itself, again")
        #expect(verdict(table, 99) == .fresh, "one late")
        #expect(verdict(table, 37) == .fresh, "63 below: the last sequence in the window")
        #expect(verdict(table, 36) == .replay, "64 below: out of the window")
        #expect(verdict(table, 0) == .replay)
    }

    @Test("A late sequence is accepted once: heard again it is a duplicate, and its neighbours stay new")
    func lateThenAgain() {
        var table = table(accepting: [100])
        table.accept(sender: sender, sequence: 37, source: address, at: t0)
        #expect(verdict(table, 37) == .duplicate)
        #expect(verdict(table, 38) == .fresh)
        #expect(verdict(table, 36) == .replay)
        table.accept(sender: sender, sequence: 99, source: address, at: t0)
        #expect(verdict(table, 99) == .duplicate)
        #expect(verdict(table, 98) == .fresh)
    }

    @Test("Accepting a late sequence leaves the highest where it was")
    func lateDoesNotMoveTheHighest() {
        var table = table(accepting: [100])
        table.accept(sender: sender, sequence: 90, source: address, at: t0)
        // Were 90 the highest, 27 would be in its window; it is 73 below 100.
        #expect(verdict(table, 27) == .replay)
        #expect(verdict(table, 100) == .duplicate)
        #expect(verdict(table, 101) == .fresh)
    }

    @Test("Marks move with the highest: 63 behind still known, 64 behind forgotten")
    func marksMove() {
        var table = table(accepting: [100, 98])
        table.accept(sender: sender, sequence: 161, source: address, at: t0)
        #expect(verdict(table, 98) == .duplicate, "63 below the new highest, marked before it moved")
        #expect(verdict(table, 99) == .fresh, "62 below, never heard")
        #expect(verdict(table, 100) == .duplicate, "the old highest, 61 below")
        #expect(verdict(table, 97) == .replay, "64 below")
    }

    @Test("A jump ahead by 64 or more starts a fresh window: the old highest becomes a replay")
    func jumpAhead() {
        var table = table(accepting: [100])
        table.accept(sender: sender, sequence: 164, source: address, at: t0)
        #expect(verdict(table, 100) == .replay, "64 below the new highest")
        #expect(verdict(table, 101) == .fresh, "63 below, never heard")
        #expect(verdict(table, 164) == .duplicate)

        var far = self.table(accepting: [100])
        far.accept(sender: sender, sequence: 1_000, source: address, at: t0)
        #expect(verdict(far, 100) == .replay)
        #expect((937...999).allSatisfy { verdict(far, $0) == .fresh }, "the whole window below is open")
        #expect(verdict(far, 936) == .replay)
    }

    @Test("Ahead by 63: the old highest stays marked, at the bottom of the window")
    func jumpJustInside() {
        var table = table(accepting: [100])
        table.accept(sender: sender, sequence: 163, source: address, at: t0)
        #expect(verdict(table, 100) == .duplicate)
        #expect(verdict(table, 99) == .replay)
        #expect(verdict(table, 101) == .fresh)
    }

    @Test("Every sequence of a stream shuffled within 64 is accepted once; each copy is a duplicate")
    func shuffledStream() {
        var table = SenderTable()
        // Blocks of 64 delivered backwards: each block's first sequence comes 63 after its last.
        var order: [UInt64] = []
        for block in 0..<10 { order += (UInt64(block * 64 + 1)...UInt64(block * 64 + 64)).reversed() }
        var accepted = 0
        for sequence in order {
            if table.verdict(sender: sender, sequence: sequence, at: t0) == .fresh {
                table.accept(sender: sender, sequence: sequence, source: address, at: t0)
                accepted += 1
            }
        }
        #expect(accepted == 640)
        #expect(order.allSatisfy { verdict(table, $0) != .fresh })
    }

    @Test("No address is bound: a sender heard from another address is judged by its sequence; expiry forgets the window")
    func sourceAndExpiry() {
        var table = table(accepting: [100])
        #expect(table.verdict(sender: sender, sequence: 101, at: t0) == .fresh)
        table.accept(sender: sender, sequence: 101, source: "198.51.100.9:47788", at: t0)
        #expect(table.verdict(sender: sender, sequence: 101, at: t0) == .duplicate)
        #expect(table.verdict(sender: sender, sequence: 36, at: t0.addingTimeInterval(119.9)) == .replay)
        #expect(table.verdict(sender: sender, sequence: 36, at: t0.addingTimeInterval(120)) == .fresh)
        #expect(table.verdict(sender: sender, sequence: 100, at: t0.addingTimeInterval(120)) == .fresh)
    }

    @Test("At the ends of the sequence space: below 64 and at 2⁶⁴−1")
    func ends() {
        var low = table(accepting: [5])
        #expect(verdict(low, 0) == .fresh)
        low.accept(sender: sender, sequence: 0, source: address, at: t0)
        #expect(verdict(low, 0) == .duplicate)
        #expect(verdict(low, 4) == .fresh)

        let high = table(accepting: [.max])
        #expect(verdict(high, .max) == .duplicate)
        #expect(verdict(high, .max - 63) == .fresh)
        #expect(verdict(high, .max - 64) == .replay)
    }
}
