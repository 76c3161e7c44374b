import Testing
@testable import ShellHost

/// Giving back the pages of files mapped read-only: only mappings with no page of their own,
/// and the process goes on running the code it gave back.
@Suite("The pages of read-only mappings given back")
struct ProgramPagesTests {
    @Test("A header line names a mapping; only private read-only ones of a file with no page of their own are given back")
    func lines() throws {
        let code = try #require(ProgramPages.mapping("5581a2c00000-5581a3c4f000 r-xp 00400000 fd:01 1318 /usr/bin/baton\n"))
        #expect(code == .init(start: 0x5581a2c00000, end: 0x5581a3c4f000, permissions: "r-xp", path: "/usr/bin/baton"))
        #expect(code.isGivenBack)
        #expect(ProgramPages.mapping("7f00-8f00 r-xp 00000000 fd:01 77   /usr/lib/a b.so\n")?.path == "/usr/lib/a b.so")
        #expect(ProgramPages.mapping("7f00-8f00 r--p 00000000 fd:01 77 /usr/bin/baton\n")?.isGivenBack == true, "constants")
        var relocated = try #require(ProgramPages.mapping("7f00-8f00 r--p 00000000 fd:01 77 /usr/bin/baton\n"))
        relocated.anonymousKilobytes = 636
        #expect(!relocated.isGivenBack, "read-only now, written before: its pages are its own")
        #expect(ProgramPages.mapping("7f00-8f00 rw-p 00000000 fd:01 77 /usr/bin/baton\n")?.isGivenBack == false, "data")
        #expect(ProgramPages.mapping("7f00-8f00 r-xs 00000000 fd:01 77 /dev/shm/x\n")?.isGivenBack == false, "shared")
        #expect(ProgramPages.mapping("7ffd0000-7ffd2000 r-xp 00000000 00:00 0 [vdso]\n")?.isGivenBack == false)
        #expect(ProgramPages.mapping("7f00-8f00 r--p 00000000 00:00 0\n")?.isGivenBack == false, "anonymous")
        #expect(ProgramPages.mapping("Anonymous:        636 kB\n") == nil)
        #expect(ProgramPages.kilobytes("Anonymous:        636 kB\n") == 636)
        #expect(ProgramPages.mapping("garbage") == nil)
    }

    /// Kilobytes resident in those of `mappings` that are given back.
    static func residentGivenBack(_ mappings: [ProgramPages.Mapping]) -> Int {
        mappings.filter(\.isGivenBack).reduce(0) { $0 + $1.residentKilobytes }
    }

    @Test("The test process: its code resident before, mostly gone after, the relocated data untouched, and it runs on")
    func givesBack() {
        // Each read of /proc/self/smaps walks every mapping of this large process: three reads.
        let before = ProgramPages.mappings()
        #expect(before.contains { $0.isGivenBack && $0.permissions == "r-xp" }, "\(before.map(\.path))")
        let given = ProgramPages.giveBack()
        let after = ProgramPages.mappings()
        #expect(given > 0)
        // Other tests run beside this one: they map some of their code again meanwhile, and make
        // and drop mappings of their own, so only the mappings there before are compared.
        let starts = Set(before.map(\.start))
        let residentBefore = Self.residentGivenBack(before)
        let residentAfter = Self.residentGivenBack(after.filter { starts.contains($0.start) })
        #expect(residentBefore > 0 && residentAfter < residentBefore * 3 / 4, "resident: \(residentBefore) KB before, \(residentAfter) KB after")
        // What was written stays: the files' relocated data keep their own pages.
        let relocated = before.filter { $0.path.hasPrefix("/") && $0.anonymousKilobytes > 0 }
        #expect(!relocated.isEmpty)
        for mapping in relocated {
            #expect(after.contains { $0.start == mapping.start && $0.anonymousKilobytes > 0 }, "\(mapping.path) at \(mapping.start)")
        }
    }

    @Test("Free pages in the middle of malloc's heap, which free() alone keeps, are given back by trimHeap")
    func trimHeap() {
        // 64 KiB blocks come from the heap (under the mmap threshold); the last one, kept, holds
        // the heap's top, so freeing the others leaves 12 MiB free in its middle.
        var blocks = (0..<193).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16) }
        for block in blocks { block.initializeMemory(as: UInt8.self, repeating: 1, count: 64 * 1024) }
        let kept = blocks.removeLast()
        for block in blocks { block.deallocate() }
        #expect(ProgramPages.trimHeap(), "malloc_trim gave nothing back")
        kept.deallocate()
    }
}
