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
}
