import BatonCommands
import Foundation
import HandoffStore
import HandoffWire
import PropertyList
import Testing

/// The kv commands' work on this machine's disk alone: `get --wait 0`, `policy`, `list`
/// without `--wait`, and a write kept here when the network cannot be joined.
@MainActor
@Suite("kv on this machine's disk")
struct KvMachineTests {
    struct NoNetwork: Error, CustomStringConvertible {
        var description: String { "no interface can join 239.255.77.88" }
    }

    @Test("get --wait 0 reads the file; a store or a key that is not there is noSuchKey here")
    func value() throws {
        let home = try KvHome()
        let machine = home.machine
        #expect(throws: KvFailure.noSuchKey(key: "theme", store: "baton", where: .here)) {
            try machine.value(of: .named("theme"), in: .standard)
        }
        let delivery = try machine.writeOffline(.standard, because: NoNetwork()) { store throws(KeyValueStoreError) in
            try store.set(.string("dark"), forKey: "theme")
        }
        #expect(delivery == .offline(because: "no interface can join 239.255.77.88"))
        #expect(try machine.value(of: .named("theme"), in: .standard) == .string("dark"))
        #expect(throws: KvFailure.noSuchKey(key: "font", store: "baton", where: .here)) {
            try machine.value(of: .named("font"), in: .standard)
        }
        let note = try #require(KvFailure.noSuchKey(key: "font", store: "baton", where: .here).note)
        #expect(note == "No key 'font' in the store 'baton' on this machine (--wait 0: peers were not asked).")
    }

    @Test("A write kept here that breaks a limit is refused and changes nothing")
    func offlineRefused() throws {
        let home = try KvHome()
        let machine = home.machine
        let big = PropertyListValue.data(Data(count: 1_100_000))
        #expect {
            try machine.writeOffline(.standard, because: NoNetwork()) { store throws(KeyValueStoreError) in
                try store.set(big, forKey: "logo")
            }
        } throws: { error in
            guard case KvFailure.refused = error else { return false }
            return true
        }
        #expect(throws: KvFailure.noSuchKey(key: "logo", store: "baton", where: .here)) {
            try machine.value(of: .named("logo"), in: .standard)
        }
    }

    @Test("When the store cannot be opened either, what the network said is the error")
    func offlineWithoutStore() throws {
        let home = try KvHome()
        let folder = try home.storeFolder()
        try FileManager.default.createDirectory(atPath: folder + "/baton.plist", withIntermediateDirectories: true)
        #expect(throws: NoNetwork.self) {
            try home.machine.writeOffline(.standard, because: NoNetwork()) { store throws(KeyValueStoreError) in
                try store.set(.integer(1), forKey: "k")
            }
        }
    }

    @Test("policy shows newest for a store with no file, and a set policy is on disk")
    func policy() throws {
        let home = try KvHome()
        let machine = home.machine
        let editor = StoreName.named("editor")
        #expect(try machine.policy(of: editor) == .newest)
        try machine.setPolicy(.keepBoth, of: editor)
        #expect(try machine.policy(of: editor) == .keepBoth)
        #expect(try machine.file(editor).read()?.policy == .keepBoth)
        #expect(try machine.policy(of: .standard) == .newest)
    }

    @Test("A damaged file is the command's error and is left where it is; an unreadable one too")
    func damaged() throws {
        let home = try KvHome()
        let folder = try home.storeFolder()
        let garbage = Data("not a property list".utf8)
        try garbage.write(to: URL(fileURLWithPath: folder + "/baton.plist"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder + "/baton.plist")
        #expect {
            try home.machine.value(of: .named("theme"), in: .standard)
        } throws: { error in
            guard case KvFailure.files(let sentence) = error else { return false }
            return sentence.contains(folder + "/baton.plist") && sentence.contains("damaged")
        }
        #expect(FileManager.default.contents(atPath: folder + "/baton.plist") == garbage)

        try FileManager.default.createDirectory(atPath: folder + "/odd.plist", withIntermediateDirectories: true)
        #expect {
            try home.machine.policy(of: .named("odd"))
        } throws: { error in
            guard case KvFailure.files = error else { return false }
            return true
        }
    }

    @Test("list reads the file: rows sorted by key, the writer named from the list of devices, not stale")
    func listing() throws {
        let home = try KvHome()
        let machine = home.machine
        #expect(try machine.listing(.standard, ownName: "me").rows.isEmpty)
        _ = try machine.writeOffline(.standard, because: NoNetwork()) { store throws(KeyValueStoreError) in
            try store.setAll(["b": .integer(2), "a": .string("one"), "c": .boolean(true)])
        }
        let listing = try machine.listing(.standard, ownName: "me")
        #expect(listing.rows.map(\.key) == ["a", "b", "c"])
        #expect(listing.rows.map(\.value) == [.string("one"), .integer(2), .boolean(true)])
        #expect(listing.rows.allSatisfy { $0.writerName == "me" })
        #expect(!listing.isStale && listing.staleNote(now: Date()) == nil)
    }

    @Test("An empty store's note names the other stores here")
    func emptyNote() throws {
        let home = try KvHome()
        let machine = home.machine
        try machine.setPolicy(.keepLocal, of: .named("editor"))
        let note = machine.emptyNote(.standard)
        #expect(note.hasSuffix("Other stores here (--store NAME): editor."))
    }
}
