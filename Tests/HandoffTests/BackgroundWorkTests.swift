import Foundation
import Testing
@testable import Handoff
#if canImport(Glibc)
import Glibc
#endif

@Suite("Background work")
struct BackgroundWorkTests {
    static func niceness() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test("A job runs on a thread of its own at nice 10 and hands back what it made; the caller's priority stays")
    func lowerPriorityThread() async {
        let before = Self.niceness()
        let (value, niceness, isMain) = await BackgroundWork.run { (21 * 2, Self.niceness(), Thread.isMainThread) }
        #expect(value == 42)
        #expect(niceness == max(before, BackgroundWork.niceness))
        #expect(!isMain)
        #expect(Self.niceness() == before)
    }
}
