import Crypto
import Synchronization
import Testing
@testable import HandoffWire

/// What a source keeps to serve: the last two revisions of at most 16 activities (the one before
/// the newest while it may be fetched).
@Suite("State shelf")
struct StateShelfTests {
    func put(_ shelf: StateShelf, _ id: String, _ revision: Int, _ byte: UInt8 = 0) {
        shelf.put(activityID: id, revision: revision, digest: [byte, UInt8(revision)], bytes: [byte, UInt8(revision), 1, 2])
    }

    @Test("The last two revisions of an activity are kept, found by revision and digest")
    func lastTwoRevisions() {
        let shelf = StateShelf()
        put(shelf, "A", 1)
        put(shelf, "A", 2)
        put(shelf, "A", 3)
        #expect(shelf.revisions(of: "A") == [2, 3])
        #expect(shelf.state(activityID: "A", revision: 1, digest: [0, 1]) == nil)
        #expect(shelf.state(activityID: "A", revision: 2, digest: [0, 2]) == [0, 2, 1, 2])
        #expect(shelf.state(activityID: "A", revision: 3, digest: [0, 3]) == [0, 3, 1, 2])
        #expect(shelf.state(activityID: "A", revision: 3, digest: [0, 2]) == nil, "the digest must match too")
        #expect(shelf.state(activityID: "B", revision: 3, digest: [0, 3]) == nil)
    }

    @Test("The revision before the newest: kept through one trim after it is superseded, then dropped unless asked for since")
    func trimSuperseded() {
        let shelf = StateShelf()
        put(shelf, "A", 1)
        #expect(!shelf.trimSuperseded(), "a lone revision is never trimmed")
        #expect(shelf.revisions(of: "A") == [1])
        put(shelf, "A", 2)
        shelf.put(.storeState(store: "s"), revision: 1, digest: [9], bytes: [9])
        shelf.put(.storeState(store: "s"), revision: 2, digest: [8], bytes: [8])
        #expect(shelf.trimSuperseded(), "the one just superseded is kept through the first trim")
        #expect(shelf.revisions(of: "A") == [1, 2])
        // Asked for (a fetch, or its resume after a drop): kept through the next trim too.
        #expect(shelf.state(activityID: "A", revision: 1, digest: [0, 1]) == [0, 1, 1, 2])
        #expect(shelf.trimSuperseded())
        #expect(shelf.revisions(of: "A") == [1, 2])
        // Nobody asked since: gone; the newest and the store's two stay.
        #expect(!shelf.trimSuperseded())
        #expect(shelf.revisions(of: "A") == [2])
        #expect(shelf.state(activityID: "A", revision: 1, digest: [0, 1]) == nil)
        #expect(shelf.state(activityID: "A", revision: 2, digest: [0, 2]) == [0, 2, 1, 2])
        #expect(shelf.revisions(of: .storeState(store: "s")) == [1, 2])
        // A servable asks as a GET does.
        put(shelf, "A", 3)
        #expect(shelf.trimSuperseded())
        #expect(shelf.servable(.activity("A"), revision: 2, digest: [0, 2]) != nil)
        #expect(shelf.trimSuperseded())
        #expect(!shelf.trimSuperseded())
        #expect(shelf.revisions(of: "A") == [3])
    }

    @Test("One trim is armed at a time, again once it ran")
    func armTrim() {
        let shelf = StateShelf()
        #expect(shelf.armTrim())
        #expect(!shelf.armTrim(), "armed twice before the trim")
        shelf.trimSuperseded()
        #expect(shelf.armTrim())
    }

    @Test("A state kept as a way to make it: made at each fetch, served only when it matches its digest")
    func remadeStates() {
        let shelf = StateShelf()
        let state: [UInt8] = Array("the state encoding".utf8)
        let digest = Array(SHA256.hash(data: state))
        let made = Mutex(0)
        shelf.put(activityID: "A", revision: 1, digest: digest) {
            made.withLock { $0 += 1 }
            return state
        }
        #expect(made.withLock { $0 } == 0, "nothing is made before a fetch asks")
        #expect(shelf.byteCount == 0)
        #expect(shelf.state(activityID: "A", revision: 1, digest: digest) == state)
        #expect(shelf.state(activityID: "A", revision: 1, digest: digest) == state)
        #expect(made.withLock { $0 } == 2)
        #expect(shelf.state(activityID: "A", revision: 1, digest: [0]) == nil, "the digest asked for must match")
        // Bytes that do not hash to the digest kept are never served.
        shelf.put(activityID: "A", revision: 2, digest: digest) { Array("another encoding".utf8) }
        #expect(shelf.state(activityID: "A", revision: 2, digest: digest) == nil)
        #expect(shelf.revisions(of: "A") == [1, 2])
    }

    @Test("Putting a kept revision again replaces it and does not push out the other one")
    func sameRevisionReplaces() {
        let shelf = StateShelf()
        put(shelf, "A", 1)
        put(shelf, "A", 2)
        put(shelf, "A", 2, 9)
        #expect(shelf.revisions(of: "A") == [1, 2])
        #expect(shelf.state(activityID: "A", revision: 2, digest: [0, 2]) == nil)
        #expect(shelf.state(activityID: "A", revision: 2, digest: [9, 2]) == [9, 2, 1, 2])
        #expect(shelf.byteCount == 8)
    }

    @Test("A 17th activity drops the one put least recently")
    func sixteenActivities() {
        let shelf = StateShelf()
        for index in 0..<16 { put(shelf, "A\(index)", 1) }
        put(shelf, "A0", 2)  // A0 is now the most recent; A1 the least
        put(shelf, "B", 1)
        #expect(shelf.activityIDs.count == 16)
        #expect(!shelf.activityIDs.contains("A1"))
        #expect(shelf.activityIDs.first == "A2" && shelf.activityIDs.last == "B")
        #expect(shelf.revisions(of: "A0") == [1, 2])
    }

    @Test("remove forgets one activity, removeAll everything")
    func removing() {
        let shelf = StateShelf()
        put(shelf, "A", 1)
        put(shelf, "B", 1)
        shelf.remove(activityID: "A")
        #expect(shelf.activityIDs == ["B"])
        #expect(shelf.state(activityID: "A", revision: 1, digest: [0, 1]) == nil)
        shelf.removeAll()
        #expect(shelf.activityIDs.isEmpty && shelf.byteCount == 0)
        put(shelf, "C", 1)
        #expect(shelf.state(activityID: "C", revision: 1, digest: [0, 1]) != nil)
    }

    @Test("Puts and reads from many tasks at once leave a consistent shelf")
    func concurrentUse() async {
        let shelf = StateShelf()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for revision in 1...200 {
                        shelf.put(activityID: "T\(task)", revision: revision, digest: [UInt8(task)], bytes: [UInt8(revision % 256)])
                        _ = shelf.state(activityID: "T\((task + 1) % 8)", revision: revision, digest: [UInt8((task + 1) % 8)])
                    }
                }
            }
        }
        #expect(Set(shelf.activityIDs) == Set((0..<8).map { "T\($0)" }))
        for task in 0..<8 { #expect(shelf.revisions(of: "T\(task)") == [199, 200]) }
    }

    @Test("A store state has a key of its own: named `store:` and the store's name in a GET, apart from every activity")
    func storeStateKey() {
        let shelf = StateShelf()
        shelf.put(.storeState(store: "notes"), revision: 1, digest: [7], bytes: [7, 7])
        put(shelf, "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11", 1)
        #expect(shelf.activityIDs == ["6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"], "a store state is no activity")
        #expect(shelf.keys == [.storeState(store: "notes"), .activity("6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11")])
        #expect(StateShelf.Key.storeState(store: "notes").requestedName == "store:notes")
        #expect(StateShelf.Key(requested: "store:notes") == .storeState(store: "notes"))
        #expect(StateShelf.Key(requested: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11") == .activity("6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"))
        // What a GET for `store:notes` reaches, as the server looks it up.
        let request = StateRequest(key: .storeState(store: "notes"), revision: 1, digest: [7], size: 2)
        #expect(request.activityID == "store:notes")
        #expect(shelf.servable(request.key, revision: 1, digest: [7])?.bytes == [7, 7])
        #expect(shelf.state(activityID: "notes", revision: 1, digest: [7]) == nil)
        shelf.remove(.storeState(store: "notes"))
        #expect(shelf.keys == [.activity("6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11")])
    }
}
