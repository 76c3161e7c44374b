@testable import BatonRuntime
import Handoff
import Testing

/// The editor's upkeep policy, without I/O: minutes of time walked through synchronously.
@Suite("Editor upkeep: when to publish, join and write the recovery copy")
struct EditorUpkeepTests {
    typealias Buffer = EditorUpkeep.Buffer
    let start = ContinuousClock.now

    func small(version: UInt64, dirty: Bool = true) -> Buffer {
        Buffer(bytes: 100, isTextKept: false, isDirty: dirty, version: version)
    }

    func large(version: UInt64, dirty: Bool = true, kept: Bool = false) -> Buffer {
        Buffer(bytes: 16 << 20, isTextKept: kept, isDirty: dirty, version: version)
    }

    @Test("A small buffer: published at each flush; its copy a second after a change, once for many changes; removed when clean")
    func smallBuffer() {
        var upkeep = EditorUpkeep()
        upkeep.inputTaken(at: start)
        #expect(upkeep.flushed(small(version: 1), publishDue: true, at: start) == [.publish])
        #expect(upkeep.nextDeadline == start + .seconds(1))
        // More changes within the second: still one copy, at the first change's second.
        upkeep.inputTaken(at: start + .milliseconds(400))
        #expect(upkeep.flushed(small(version: 2), publishDue: true, at: start + .milliseconds(400)) == [.publish])
        #expect(upkeep.tick(small(version: 2), at: start + .milliseconds(999)) == [])
        #expect(upkeep.tick(small(version: 2), at: start + .seconds(1)) == [.writeCopy])
        #expect(upkeep.nextDeadline == nil, "a deadline while the copy is written")
        // No new copy without a change.
        #expect(upkeep.copyWritten(small(version: 2), at: start + .milliseconds(1100)) == [])
        #expect(upkeep.flushed(small(version: 2), publishDue: false, at: start + .seconds(2)) == [])
        #expect(upkeep.nextDeadline == nil)
        // Saved: the copy goes, once.
        #expect(upkeep.flushed(small(version: 2, dirty: false), publishDue: false, at: start + .seconds(3)) == [.removeCopy])
        #expect(upkeep.flushed(small(version: 2, dirty: false), publishDue: false, at: start + .seconds(4)) == [])
    }

    @Test("A change while its copy is written: the next copy is due a second after the write ends")
    func changeDuringWrite() {
        var upkeep = EditorUpkeep()
        _ = upkeep.flushed(small(version: 1), publishDue: true, at: start)
        #expect(upkeep.tick(small(version: 1), at: start + .seconds(1)) == [.writeCopy])
        #expect(upkeep.flushed(small(version: 2), publishDue: true, at: start + .milliseconds(1100)) == [.publish])
        #expect(upkeep.nextDeadline == nil, "a second write was scheduled beside the first")
        #expect(upkeep.copyWritten(small(version: 2), at: start + .milliseconds(1500)) == [])
        #expect(upkeep.nextDeadline == start + .milliseconds(2500))
        #expect(upkeep.tick(small(version: 2), at: start + .milliseconds(2500)) == [.writeCopy])
    }

    @Test("Without recovery copies the policy asks for none, and no timer for them")
    func noCopies() {
        var upkeep = EditorUpkeep(keepsCopies: false)
        #expect(upkeep.flushed(small(version: 1), publishDue: true, at: start) == [.publish])
        #expect(upkeep.nextDeadline == nil)
        #expect(upkeep.flushed(small(version: 1, dirty: false), publishDue: false, at: start) == [])
    }

    @Test("Typing into 16 MB without a pause: nothing runs between keys; every 5 s the hold ends, the text is joined, then published and copied")
    func largeBufferTypedWithoutAPause() {
        var driver = UpkeepDriver(start: start)
        // A key every 50 ms for 12 s.
        while driver.now < start + .seconds(12) { driver.step(key: true, then: .milliseconds(50)) }
        let joins = driver.log.filter { $0.1 == .join }.map { $0.0 - start }
        let publishes = driver.log.filter { $0.1 == .publish }.map { $0.0 - start }
        let copies = driver.log.filter { $0.1 == .writeCopy }.map { $0.0 - start }
        #expect(joins == [.seconds(5), .seconds(10)], "joins at \(joins)")
        #expect(publishes == [.seconds(5), .seconds(10)], "publishes at \(publishes)")
        #expect(copies == [.seconds(5), .seconds(10)], "copies at \(copies)")
    }

    @Test("A pause in typing ends the hold 300 ms after the last key: join, then the held publish with the newest text, and the copy")
    func pauseEndsTheHold() {
        var upkeep = EditorUpkeep()
        for step in 0..<10 {
            let at = start + .milliseconds(100 * step)
            upkeep.inputTaken(at: at)
            #expect(upkeep.flushed(large(version: UInt64(step + 1)), publishDue: true, at: at) == [])
        }
        let lastKey = start + .milliseconds(900)
        #expect(upkeep.nextDeadline == lastKey + .milliseconds(300))
        #expect(upkeep.tick(large(version: 10), at: lastKey + .milliseconds(299)) == [])
        // The publish waits for the join; the copy is written at once.
        #expect(upkeep.tick(large(version: 10), at: lastKey + .milliseconds(300)) == [.join, .writeCopy])
        #expect(upkeep.joined(version: 10, large(version: 10, kept: true), at: lastKey + .milliseconds(400)) == [.publish])
        #expect(upkeep.nextDeadline == nil)
    }

    @Test("A save that published an older join: once the newest text is joined it is published again, unless it moved on")
    func savedBehind() {
        var upkeep = EditorUpkeep()
        // Not typing (no input): a large buffer joins after joinWait.
        #expect(upkeep.flushed(large(version: 3, dirty: false), publishDue: true, at: start) == [.publish])
        let wait = EditorUpkeep.joinWait(bytes: 16 << 20)
        #expect(wait == .milliseconds(838))
        #expect(upkeep.nextDeadline == start + wait)
        #expect(upkeep.tick(large(version: 3, dirty: false), at: start + wait) == [.join])
        upkeep.savedBehind = true
        #expect(upkeep.joined(version: 3, large(version: 3, dirty: false, kept: true), at: start + .seconds(1)) == [.publish])
        // The buffer moved on before the join ended: no publish of a text already old; the next join is due.
        _ = upkeep.flushed(large(version: 4, dirty: false), publishDue: true, at: start + .seconds(2))
        #expect(upkeep.tick(large(version: 4, dirty: false), at: start + .seconds(2) + wait) == [.join])
        upkeep.savedBehind = true
        #expect(upkeep.joined(version: 4, large(version: 5, dirty: false), at: start + .seconds(3)) == [])
        #expect(upkeep.nextDeadline == start + .seconds(3) + wait, "the newer text is not joined next")
    }

    @Test("Ten minutes of seeded typing and pauses into 16 MB: bulk work within 300 ms of a key only after 5 s of holding, and it keeps coming")
    func tenMinutesOfTyping() {
        var generator = SplitMix64(seed: 2026)
        var driver = UpkeepDriver(start: start)
        while driver.now < start + .seconds(600) {
            driver.step(key: generator.next() % 3 != 0, then: .milliseconds(Int(generator.next() % 400)))
        }
        var lastKey = start - .seconds(1)
        var lastWork = start
        var keys = driver.keys[...]
        for (at, action) in driver.log where action == .join || action == .writeCopy {
            while let key = keys.first, key < at {
                lastKey = key
                keys = keys.dropFirst()
            }
            if at - lastKey < .milliseconds(300), at != lastWork {
                #expect(at - lastWork >= .seconds(5), "\(action) at \(at - driver.keys[0]) \(at - lastKey) after a key, \(at - lastWork) after the last work")
            }
            lastWork = at
        }
        let count = { (action: EditorUpkeep.Action) in driver.log.count { $0.1 == action } }
        #expect(count(.join) > 100 && count(.publish) > 100 && count(.writeCopy) > 100,
            "\(count(.join)) joins, \(count(.publish)) publishes, \(count(.writeCopy)) copies in ten minutes")
        #expect(count(.removeCopy) == 0)
    }
}

/// Runs an `EditorUpkeep` as the Program does, over a 16 MB dirty buffer in virtual time: each
/// step takes a key (or not) and flushes, then every deadline up to the next step is ticked,
/// and joins and copy writes answer at once.
struct UpkeepDriver {
    var upkeep = EditorUpkeep()
    var now: ContinuousClock.Instant
    var version: UInt64 = 0
    var log: [(ContinuousClock.Instant, EditorUpkeep.Action)] = []
    var keys: [ContinuousClock.Instant] = []

    init(start: ContinuousClock.Instant) {
        now = start
    }

    var buffer: EditorUpkeep.Buffer {
        EditorUpkeep.Buffer(bytes: 16 << 20, isTextKept: false, isDirty: true, version: version)
    }

    mutating func step(key: Bool, then wait: Duration) {
        if key {
            version += 1
            keys.append(now)
            upkeep.inputTaken(at: now)
        }
        perform(upkeep.flushed(buffer, publishDue: key, at: now), at: now)
        let next = now + wait
        while let deadline = upkeep.nextDeadline, deadline <= next {
            perform(upkeep.tick(buffer, at: deadline), at: deadline)
        }
        now = next
    }

    mutating func perform(_ actions: [EditorUpkeep.Action], at time: ContinuousClock.Instant) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            log.append((time, action))
            switch action {
            case .join:
                let joined = EditorUpkeep.Buffer(bytes: 16 << 20, isTextKept: true, isDirty: true, version: version)
                queue += upkeep.joined(version: version, joined, at: time)
            case .writeCopy:
                queue += upkeep.copyWritten(buffer, at: time)
            case .publish, .removeCopy:
                break
            }
        }
    }
}
