import BatonApp
import Dispatch
import Synchronization
import Testing
@testable import BatonRuntime

/// The Program's inbox: what is posted from any thread comes out in the order posted, to a loop
/// that waits on its own actor; it counts what is not yet taken, a message on its way to the
/// loop included; a finished inbox hands out what it holds, then nil, and drops what comes after.
@MainActor
@Suite("The Program's inbox")
struct InboxTests {
    nonisolated static func tick(_ n: Int) -> AppMessage { .liveSent(link: n) }

    @Test("Posts from four threads at once come out whole and, per thread, in order; the count is what is not yet taken")
    func order() async {
        let inbox = Inbox()
        let perThread = 2_000
        let taken = Task { @MainActor () -> [Int] in
            var links: [Int] = []
            while links.count < 4 * perThread, let message = await inbox.next() {
                if case .liveSent(let link) = message { links.append(link) }
            }
            return links
        }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread { inbox.yield(Self.tick(thread * 100_000 + index)) }
        }
        let links = await taken.value
        #expect(links.count == 4 * perThread)
        for thread in 0..<4 {
            let mine = links.filter { $0 / 100_000 == thread }
            #expect(mine == (0..<perThread).map { thread * 100_000 + $0 }, "thread \(thread)'s posts in order")
        }
        #expect(inbox.waiting == 0)
    }

    @Test("Waiting counts a message until the loop took it; finish hands out what is held, then nil; later posts are dropped")
    func finishAndCount() async {
        let inbox = Inbox()
        inbox.yield(Self.tick(1))
        inbox.yield(Self.tick(2))
        #expect(inbox.waiting == 2)
        #expect(await inbox.next() == Self.tick(1))
        #expect(inbox.waiting == 1)
        inbox.finish()
        inbox.yield(Self.tick(3))
        #expect(inbox.waiting == 1, "a post after finish is dropped")
        #expect(await inbox.next() == Self.tick(2))
        #expect(await inbox.next() == nil)
        #expect(inbox.waiting == 0)
    }

    @Test("A loop waiting is resumed by a post from another thread, and by finish")
    func waiting() async {
        let inbox = Inbox()
        let first = Task { @MainActor in await inbox.next() }
        DispatchQueue.global().async { inbox.yield(Self.tick(7)) }
        #expect(await first.value == Self.tick(7))
        let second = Task { @MainActor in await inbox.next() }
        DispatchQueue.global().async { inbox.finish() }
        #expect(await second.value == nil)
    }

    @Test("With a drainer, posts made while the loop waits go to the drainer's job, in order, and the loop is not resumed; finish resumes it with what is still queued")
    func drainer() async {
        let inbox = Inbox()
        let calls = Atomic<Int>(0)
        inbox.drainWhileWaiting { calls.add(1, ordering: .relaxed) }
        let loop = Task { @MainActor in await inbox.next() }
        let deadline = ContinuousClock.now + .seconds(10)
        while !inbox.loopWaits, ContinuousClock.now < deadline { await Task.yield() }
        #expect(inbox.loopWaits)
        #expect(calls.load(ordering: .relaxed) == 0)
        inbox.yield(Self.tick(1))
        #expect(calls.load(ordering: .relaxed) == 1, "the drainer is called when a post finds the loop waiting")
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for index in 1...100 where thread == 1 || index > 1 { inbox.yield(Self.tick(thread * 1_000 + index)) }
        }
        #expect(calls.load(ordering: .relaxed) == 1, "called once until its job finds the queue empty")
        var links: [Int] = []
        while let message = inbox.takeQueued() {
            if case .liveSent(let link) = message { links.append(link) }
        }
        #expect(links.filter { $0 >= 1_000 } == (1...100).map { 1_000 + $0 })
        #expect(links.filter { $0 < 1_000 } == Array(1...100), "the first post, then thread 0's, in order")
        #expect(inbox.waiting == 0)
        inbox.yield(Self.tick(5))
        #expect(calls.load(ordering: .relaxed) == 2, "an empty queue found: the next post calls it again")
        inbox.yield(Self.tick(6))
        inbox.finish()
        #expect(await loop.value == Self.tick(5), "finish resumes the waiting loop with what is queued")
        #expect(await inbox.next() == Self.tick(6))
        #expect(await inbox.next() == nil)
    }
}
