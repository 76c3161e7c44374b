import ArgumentParser
import BatonApp
import BatonFiles
import BatonMembership
import Foundation
import Handoff
import HandoffCLI
import HandoffStore
import HandoffWire
import PropertyList

/// `baton kv`: the group's key-value stores from the terminal (docs/PROTOCOL.md, section 18).
struct KvCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Keep small keys and values the same on every machine of the group: settings, a last-opened file.",
        discussion: """
            A key-value store shared by the machines that share the group key: Apple's \
            NSUbiquitousKeyValueStore without an account or a server. A write is saved here at once \
            and sent to the peers. Every running Baton program (the app, baton monitor, baton kv \
            watch) holds the stores and answers the others, so a machine that was away catches up \
            when it comes back. When two machines write one key, the newest write wins everywhere.

              baton kv set theme dark --string    a text
              baton kv set font-size 14           JSON: 14, true, [1, 2], {"w": 80}, "dark"
              printf %s "$TEXT" | baton kv set note - --string    VALUE from standard input
              baton kv get theme                  dark; exit 1 when there is no such key
              baton kv rm theme                   removed on every machine
              baton kv list                       KEY, BYTES, WRITER, SAVED of each key
              baton kv watch                      each change peers make, until Ctrl-C
              baton kv import settings.json       many keys at once, from a JSON object
              baton kv policy keep-both           what a store does when two machines write one key

            VALUE is JSON, read as baton-peer --user-info is: objects, arrays, strings, numbers (a \
            whole number is an integer), true and false; null is refused. A bare word is not JSON: \
            add --string, or quote it ('"dark"').

            Stores have names (--store NAME, default baton) and live in $XDG_STATE_HOME/baton/store \
            (~/.local/state/baton/store), a NAME.plist each, mode 0600. A store holds at most 1,024 \
            keys of up to 64 bytes and 1 MB of keys and values; a write past a limit fails and \
            changes nothing.

            Exit status: 0 done; 1 no such key, a write the store refused, or a network or file \
            problem (said on standard error); 64 a usage error (a bad KEY, VALUE or option).
            """,
        subcommands: [Get.self, SetValue.self, Remove.self, List.self, Watch.self, Import.self, Policy.self])
}

/// `--store NAME`, on every `baton kv` subcommand.
struct KvStoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The store: 1-64 UTF-8 bytes, without / or NUL, not starting with a dot.", valueName: "name"))
    var store = StoreText.defaultStore

    func validate() throws {
        if let problem = StoreText.storeNameProblem(store) { throw ValidationError(problem) }
    }
}

extension KvCommand {
    /// `baton kv get KEY`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the value of a key.",
            discussion: """
                Waits up to --wait seconds for a peer to be in step with this machine (the same \
                digests), then prints the value: a string as its text, anything else as one line of \
                JSON. In the text, characters that could act on the terminal are shown visibly (a \
                newline as ␊); --json prints the exact value.

                  baton kv get theme                  dark
                  baton kv get layout                 {"w":80}
                  baton kv get theme --json           "dark"
                  baton kv get theme --wait 0         this machine's copy, without the network

                Exit status 1, with nothing on standard output, when there is no such key.
                """)

        @Argument(help: ArgumentHelp("The key: 1-64 UTF-8 bytes.", valueName: "key"))
        var key: String

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "Print the value as JSON, a string too: the exact text, with \\uXXXX for control characters.")
        var json = false

        @Option(help: ArgumentHelp(
            "Seconds to wait for a peer to be in step; 0 reads this machine's copy without the network.",
            valueName: "seconds"))
        var wait: Double = 1

        @OptionGroup var network: NetworkOptions

        func validate() throws {
            if let problem = StoreText.keyProblem(key) ?? StoreText.waitProblem(wait) { throw ValidationError(problem) }
        }

        @MainActor
        func run() async throws {
            let value: PropertyListValue?
            let unsure: String
            if wait == 0 {
                value = try KvDisk.open(kv.store).store?.object(forKey: key)
                unsure = " on this machine (--wait 0: peers were not asked)"
            } else {
                let session = try await KvSession.open(network, store: kv.store)
                let synced = await session.sync.waitForSync(of: kv.store, timeout: wait)
                value = session.store.object(forKey: key)
                await session.close()
                unsure = synced ? "" : " on this machine; no peer answered within \(KvOutput.seconds(wait)) to say otherwise"
            }
            guard let value else {
                KvOutput.note("No key \(KvOutput.quoted(key)) in the store \(KvOutput.quoted(kv.store))\(unsure).")
                throw ExitCode.failure
            }
            KvOutput.line(StoreText.text(of: value, json: json))
        }
    }

    /// `baton kv set KEY VALUE`.
    struct SetValue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set a key to a value, here and on every machine of the group.",
            discussion: """
                VALUE is JSON (objects, arrays, strings, numbers, true, false; not null); with --string \
                it is the text itself. VALUE - reads standard input to its end: with --string the text \
                as it is (a final newline included), else JSON.

                  baton kv set theme dark --string
                  baton kv set theme '"dark"'             the same, as JSON
                  baton kv set font-size 14
                  baton kv set layout '{"w": 80, "h": 24}'
                  printf %s "$TEXT" | baton kv set note - --string

                The value is on disk here when set returns, and is sent to the peers at once; set \
                then waits up to --wait seconds for one of them to take it and prints nothing. When \
                none did, it says so on standard error and still exits 0: the value goes out when a \
                peer is heard. A write past a store's limit fails with exit status 1 and changes nothing.
                """)

        @Argument(help: ArgumentHelp("The key: 1-64 UTF-8 bytes.", valueName: "key"))
        var key: String

        @Argument(help: ArgumentHelp("The value, as JSON (text with --string); - reads standard input.", valueName: "value"))
        var value: String

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "Take VALUE as text, not JSON.")
        var string = false

        @Option(help: ArgumentHelp("Seconds to wait for a peer to take the value; 0 does not wait.", valueName: "seconds"))
        var wait: Double = 2

        @OptionGroup var network: NetworkOptions

        func validate() throws {
            if let problem = StoreText.keyProblem(key) ?? StoreText.waitProblem(wait) { throw ValidationError(problem) }
            // A VALUE that is not JSON is a usage error, found before the network is joined.
            if value != "-" {
                do {
                    _ = try StoreText.value(from: value, asString: string, key: key)
                } catch {
                    throw ValidationError(error.description)
                }
            }
        }

        @MainActor
        func run() async throws {
            let text: String
            if value == "-" {
                if isatty(STDIN_FILENO) == 1 { KvOutput.note("Reading the value from standard input; end it with Ctrl-D.") }
                text = try StoreText.readAll()
            } else {
                text = value
            }
            let parsed = try StoreText.value(from: text, asString: string, key: key, fromStandardInput: value == "-")
            let session: KvSession
            do {
                session = try await KvSession.open(network, store: kv.store)
            } catch let error as ExitCode {
                throw error
            } catch {
                // No network (or no way to join it): the write is still kept here, as it would be
                // with no peer, and goes out when a Baton program of this machine is on the network.
                try KvDisk.writeOffline(kv.store, because: error) { store throws(KeyValueStoreError) in
                    try store.set(parsed, forKey: key)
                }
                return
            }
            try await session.write(keys: [key], wait: wait) { store throws(KeyValueStoreError) in try store.set(parsed, forKey: key) }
        }
    }

    /// `baton kv import FILE`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set many keys at once from a JSON object: one write, here and on every machine.",
            discussion: """
                FILE holds one JSON object; each of its keys is set to its value (JSON as for set; \
                null removes the key). The keys are checked together against the store's limits: \
                when one would break, nothing is written. - reads standard input.

                  baton kv import settings.json
                  baton kv list --json | jq -s 'map({(.key): .value}) | add' > backup.json
                  baton kv import backup.json --store restored

                Like set, it waits up to --wait seconds for a peer to take the write.
                """)

        @Argument(help: ArgumentHelp("A file holding a JSON object; - reads standard input.", valueName: "file"))
        var file: String

        @OptionGroup var kv: KvStoreOptions

        @Option(help: ArgumentHelp("Seconds to wait for a peer to take the write; 0 does not wait.", valueName: "seconds"))
        var wait: Double = 2

        @OptionGroup var network: NetworkOptions

        func validate() throws {
            if let problem = StoreText.waitProblem(wait) { throw ValidationError(problem) }
        }

        @MainActor
        func run() async throws {
            let text: String
            if file == "-" {
                text = try StoreText.readAll(limit: 8 * 1_048_576)
            } else {
                guard let data = FileManager.default.contents(atPath: file), let read = String(data: data, encoding: .utf8) else {
                    throw CommandFailure("Cannot read \(file): it is missing, unreadable or not UTF-8 text.")
                }
                text = read
            }
            let values = try StoreText.importValues(from: text)
            let session: KvSession
            do {
                session = try await KvSession.open(network, store: kv.store)
            } catch let error as ExitCode {
                throw error
            } catch {
                try KvDisk.writeOffline(kv.store, because: error) { store throws(KeyValueStoreError) in try store.setAll(values) }
                return
            }
            try await session.write(keys: Array(values.keys), wait: wait) { store throws(KeyValueStoreError) in try store.setAll(values) }
        }
    }

    /// `baton kv policy [POLICY]`.
    struct Policy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set what a store does when two machines write one key at once.",
            discussion: """
                Two writes conflict when neither machine had seen the other's. The newer one always \
                wins the key; what happens to the other is the store's policy:

                  newest       the other is gone (the default)
                  keep-local   this machine writes its own value again, after the winner: it ends \
                with this machine's value everywhere
                  keep-both    the losing value is kept under KEY.conflict.DEVICE (DEVICE: the start \
                of the losing machine's fingerprint)

                Either way kv watch prints a conflict line for the key. The policy is this machine's \
                setting for the store: set it on every machine that shares the store. Running Baton \
                programs take the change within a second.

                  baton kv policy                     the policy of the store baton
                  baton kv policy keep-both --store editor
                """)

        @Argument(help: ArgumentHelp("newest, keep-local or keep-both; none shows the policy.", valueName: "policy"))
        var policy: String?

        @OptionGroup var kv: KvStoreOptions

        func validate() throws {
            if let policy, ConflictPolicy(rawValue: policy) == nil {
                throw ValidationError("'\(PeerText.visible(policy))' is not a policy: newest, keep-local or keep-both.")
            }
        }

        @MainActor
        func run() async throws {
            guard let wanted = policy.flatMap(ConflictPolicy.init(rawValue:)) else {
                let (store, _) = try KvDisk.open(kv.store)
                KvOutput.line(store?.policy.rawValue ?? ConflictPolicy.newest.rawValue)
                return
            }
            let store = try KvDisk.openOrMake(kv.store)
            store.policy = wanted
            guard store.policy == wanted, try store.file?.read()?.policy == wanted else {
                throw CommandFailure("Cannot write the store \(store.file?.path ?? kv.store): its policy stays as it was.")
            }
        }
    }

    /// `baton kv rm KEY`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Remove a key, here and on every machine of the group.",
            discussion: """
                The removal is on disk here when rm returns and goes to the peers as a write does; rm \
                waits up to --wait seconds for one of them to take it, as set does. A machine away \
                for more than 30 days may bring the key back: baton kv list says when a store is stale.

                  baton kv rm theme
                  baton kv rm window --store editor

                Exit status 1 when there is no such key, here or at a peer that answered in time.
                """,
            aliases: ["remove"])

        @Argument(help: ArgumentHelp("The key: 1-64 UTF-8 bytes.", valueName: "key"))
        var key: String

        @OptionGroup var kv: KvStoreOptions

        @Option(help: ArgumentHelp("Seconds to wait for a peer to take the removal; 0 does not wait.", valueName: "seconds"))
        var wait: Double = 2

        @OptionGroup var network: NetworkOptions

        func validate() throws {
            if let problem = StoreText.keyProblem(key) ?? StoreText.waitProblem(wait) { throw ValidationError(problem) }
        }

        @MainActor
        func run() async throws {
            let session = try await KvSession.open(network, store: kv.store)
            // A key this machine has not heard of yet may be at a peer: ask before saying there is none.
            if session.store.object(forKey: key) == nil, wait > 0 {
                _ = await session.sync.waitForSync(of: kv.store, timeout: wait)
            }
            guard session.store.object(forKey: key) != nil else {
                await session.close()
                KvOutput.note("No key \(KvOutput.quoted(key)) in the store \(KvOutput.quoted(kv.store)): nothing to remove.")
                throw ExitCode.failure
            }
            try await session.write(keys: [key], wait: wait) { store throws(KeyValueStoreError) in try store.removeObject(forKey: key) }
        }
    }

    /// `baton kv list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the keys of a store: size, writer and age.",
            discussion: """
                Reads this machine's copy on disk, without the network, unless --wait asks peers \
                first. WRITER is the machine that wrote the value, by its name in baton devices, \
                else the first 8 digits of its fingerprint; BYTES is what the key counts against the \
                store's 1 MB. A store not in step with any peer for over 30 days is said to be stale: \
                keys removed meanwhile elsewhere may come back from here.

                  baton kv list
                  baton kv list --store editor --json
                  baton kv list --wait 1              ask peers for a second first

                --json prints one object per key and line: key, value, size, writer (the writing \
                program's sender id in hex: its machine's tag, then the program's instance), writerName \
                (when listed), savedAt (ISO 8601).
                """,
            aliases: ["ls"])

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "One JSON object per key and line.")
        var json = false

        @Option(help: ArgumentHelp(
            "Ask peers first, waiting up to this many seconds for one to be in step (default: no network).",
            valueName: "seconds"))
        var wait: Double?

        @OptionGroup var network: NetworkOptions

        func validate() throws {
            if let wait, let problem = StoreText.waitProblem(wait) { throw ValidationError(problem) }
        }

        @MainActor
        func run() async throws {
            let store: KeyValueStore?
            let roster: DeviceRoster?
            if let wait, wait > 0 {
                let session = try await KvSession.open(network, store: kv.store)
                _ = await session.sync.waitForSync(of: kv.store, timeout: wait)
                await session.close()
                store = session.store
                roster = session.peers.center.membership.roster
            } else {
                let opened = try KvDisk.open(kv.store)
                store = opened.store
                roster = opened.store == nil ? nil : KvDisk.roster(name: network.name)
            }
            if let store, store.isStale {
                KvOutput.note(StoreText.staleNote(store: store.name, lastSync: store.lastSync, now: Date()))
            }
            let entries = store.map { store in store.dictionaryRepresentation.keys.compactMap(store.entry(forKey:)) } ?? []
            let rows = StoreText.rows(entries, roster: roster)
            if json {
                rows.forEach { KvOutput.line(StoreText.listJSON($0)) }
            } else if let text = StoreText.list(rows, age: { RelativeAge.describe(seconds: Date().timeIntervalSince($0)) }) {
                KvOutput.line(text)
            }
            if rows.isEmpty { KvOutput.note(KvDisk.empty(kv.store)) }
        }
    }

    /// `baton kv watch`.
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each change peers make to a store, as it arrives, until Ctrl-C.",
            discussion: """
                One line per key changed: why, the key, and its value now. While it runs it holds \
                every store on this machine and answers peers, as the app and baton monitor do.

                  peerChange theme = dark            a peer's write, taken
                  peerChange theme removed
                  initialSync font-size = 14         caught up after start: changed while away
                  conflict theme = light             two writes crossed; the newest won
                  quotaViolation logo: …             a peer's value, over this store's limits

                --json prints one object per key and line: store, reason, key, and value (or \
                "removed": true). Ctrl-C or SIGTERM stops it, with exit status 0.
                """)

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "One JSON object per key and line.")
        var json = false

        @Option(help: ArgumentHelp("Stop after this many seconds (default: run until Ctrl-C).", valueName: "seconds"))
        var duration: Double?

        @OptionGroup var network: NetworkOptions

        func validate() throws {
            if let duration, !(duration.isFinite && duration > 0) {
                throw ValidationError("--duration must be a number of seconds above 0.")
            }
        }

        @MainActor
        func run() async throws {
            let session = try await KvSession.open(network, store: kv.store)
            let store = session.store
            if !json {
                let peers = session.peers
                KvOutput.line(
                    "# watching the store \(PeerText.visible(store.name)) (\(KvOutput.count(store.usage.keys, "key"))) on \(peers.endpoint) "
                        + "as \(PeerText.visible(peers.peer.name)), key from \(peers.keySource); Ctrl-C stops")
            }
            let changes = store.changes()
            let printer = Task { @MainActor in
                for await change in changes {
                    for key in change.keys {
                        KvOutput.line(StoreText.change(
                            store: store.name, reason: change.reason.rawValue, key: key, value: store.object(forKey: key),
                            json: json, savedAt: store.entry(forKey: key)?.version.date, at: Date()))
                    }
                    session.tellProblems()
                }
            }
            await UntilStopped.wait(duration: duration)
            printer.cancel()
            await session.close()
        }
    }
}

/// A `baton kv` command on the network: a peer session, and every store of this machine held
/// and answering peers (`StoreSync`), with the one the command names opened.
@MainActor
final class KvSession {
    let peers: PeerSession
    let sync: StoreSync
    let store: KeyValueStore
    /// How many of `sync`'s problems were looked at, and the sentences said (a store opened
    /// twice can have the same problem twice).
    private var told = 0
    private var said: Set<String> = []

    private init(peers: PeerSession, sync: StoreSync, store: KeyValueStore) {
        self.peers = peers
        self.sync = sync
        self.store = store
    }

    /// Joins the group, holds the stores, opens (or makes) `name` and starts answering peers.
    /// What went wrong with a store's file is said on standard error; a store that cannot be
    /// opened ends the command with exit status 1.
    static func open(_ network: NetworkOptions, store name: String) async throws -> KvSession {
        // A full store's plist (1 MB, read, written and served whole) in buffers that go back to
        // the system once freed, as the editor's large states do.
        EditCommand.returnLargeBuffersToTheSystem()
        let peers = try await PeerSession(options: network, app: "baton", appVersion: Baton.version)
        let sync = StoreSync(center: peers.center, folder: StoreFile.defaultFolder())
        let store: KeyValueStore
        do {
            store = try sync.store(named: name)
        } catch {
            var said = Set<String>()
            for problem in sync.problems where said.insert(problem).inserted { KvOutput.note(PeerText.visible(problem)) }
            switch error {
            case .unreadable(let sentence): if !said.contains(sentence) { KvOutput.note(PeerText.visible(sentence)) }
            case .damaged(let reason): KvOutput.note("The store \(KvOutput.quoted(name)) cannot be used: \(PeerText.visible(reason)).")
            }
            sync.stop()
            await peers.shutdown()
            throw ExitCode.failure
        }
        sync.start()
        let session = KvSession(peers: peers, sync: sync, store: store)
        session.tellProblems()
        return session
    }

    /// Says on standard error the problems of the stores not said yet.
    func tellProblems() {
        let problems = sync.problems
        guard problems.count > told else { return }
        for problem in problems[told...] where said.insert(problem).inserted { KvOutput.note(PeerText.visible(problem)) }
        told = problems.count
    }

    /// Makes a write of `keys` with `body`; a store that refuses it (a limit) ends the command
    /// with exit status 1, saying why. Then waits as `waitForPeer`: the write is taken when a
    /// peer took its greatest version.
    func write(keys: [String], wait: Double, _ body: (KeyValueStore) throws(KeyValueStoreError) -> Void) async throws {
        do {
            try body(store)
        } catch {
            KvOutput.note(error.description)
            await close()
            throw ExitCode.failure
        }
        try await waitForPeer(version: keys.compactMap { store.entry(forKey: $0)?.version }.max(), wait: wait)
    }

    /// After a write whose version is `version`: waits up to `wait` seconds for a peer to take
    /// it, closes, and says on standard error when none did.
    func waitForPeer(version: StoreVersion?, wait: Double) async throws {
        var taken = true
        if wait > 0, let version {
            taken = await sync.waitForPeer(toTake: version, timeout: wait)
        }
        await close()
        if !taken {
            KvOutput.note(
                "Saved here; no peer has it yet: it goes out when one is heard (any running baton, monitor or kv watch of the group).")
        }
    }

    /// Stops answering peers and leaves the group; the stores are on disk.
    func close() async {
        tellProblems()
        sync.stop()
        await peers.shutdown()
    }
}

/// A store read from disk alone, for `kv list` and `kv get --wait 0`.
@MainActor
enum KvDisk {
    /// Writes to store `name` on disk alone, when the network could not be joined (`failure`),
    /// and says so: the write goes out when a Baton program of this machine is on the network.
    static func writeOffline(
        _ name: String, because failure: any Error, _ write: (KeyValueStore) throws(KeyValueStoreError) -> Void
    ) throws {
        let file = StoreFile(folder: StoreFile.defaultFolder(), name: name)
        let store: KeyValueStore
        do {
            let device = try DeviceIdentity.load().identity.publicIdentity.deviceID
            store = try KeyValueStore(name: name, writer: SenderID.random(device: device), file: file)
        } catch {
            // Neither the network nor the store: what the network said is what to fix first.
            throw failure
        }
        do {
            try write(store)
        } catch {
            KvOutput.note(error.description)
            throw ExitCode.failure
        }
        KvOutput.note(
            "Saved here, but not sent: \(failure). It goes out when a Baton program of this machine (the app, "
                + "monitor or kv watch) is on the network with a peer.")
    }

    /// The store `name` on disk; nil when it has no file. A file that cannot be read fails
    /// the command, saying why and what to do.
    /// The store `name` on disk, made empty when it has no file yet.
    static func openOrMake(_ name: String) throws -> KeyValueStore {
        if let store = try open(name).store { return store }
        let device: DeviceID
        do {
            device = try DeviceIdentity.load().identity.publicIdentity.deviceID
        } catch {
            throw CommandFailure(error.description)
        }
        let file = StoreFile(folder: StoreFile.defaultFolder(), name: name)
        guard let store = try? KeyValueStore(name: name, writer: SenderID.random(device: device), file: file) else {
            throw CommandFailure("Cannot make the store \(file.path).")
        }
        return store
    }

    static func open(_ name: String) throws -> (store: KeyValueStore?, file: StoreFile) {
        let file = StoreFile(folder: StoreFile.defaultFolder(), name: name)
        guard FileManager.default.fileExists(atPath: file.path) else { return (nil, file) }
        let device: DeviceID
        do {
            device = try DeviceIdentity.load().identity.publicIdentity.deviceID
        } catch {
            throw CommandFailure(error.description)
        }
        do {
            return (try KeyValueStore(name: name, writer: SenderID.random(device: device), file: file), file)
        } catch {
            switch error {
            case .unreadable(let sentence):
                throw CommandFailure(sentence)
            case .damaged(let reason):
                throw CommandFailure("""
                    The store \(file.path) is damaged (\(reason)). The next baton kv command on the network \
                    (kv set, kv watch, kv get without --wait 0), baton monitor or the app moves it aside and \
                    rebuilds the store from peers.
                    """)
            }
        }
    }

    /// This machine's list of devices, to name writers; nil when it cannot be read.
    static func roster(name: String?) -> DeviceRoster? {
        guard let identity = try? DeviceIdentity.load().identity, let snapshot = try? DeviceList.standard().snapshot()
        else { return nil }
        let myName = PeerInfo.local(app: "baton", appVersion: Baton.version, name: name).name
        return MembershipStore.roster(identity: identity, name: myName, snapshot: snapshot)
    }

    /// What `kv list` says of a store with no key, and the other stores here.
    static func empty(_ name: String) -> String {
        let folder = StoreFile.defaultFolder()
        let others = StoreFile.names(in: folder).filter { $0 != name }
        let hint = others.isEmpty ? "" : " Other stores here (--store NAME): " + others.map(PeerText.visible).joined(separator: ", ") + "."
        return "The store \(KvOutput.quoted(name)) holds no keys on this machine (\(folder)).\(hint)"
    }
}

/// Where `baton kv` writes.
enum KvOutput {
    /// A line on standard output.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A note on standard error.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A key or store name to show in a sentence: visible, in quotes.
    static func quoted(_ text: String) -> String { "'" + PeerText.visible(text) + "'" }

    /// `1 key`, `3 keys`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `1 s`, `0.5 s`.
    static func seconds(_ value: Double) -> String {
        (value == value.rounded() ? String(Int(value)) : String(value)) + " s"
    }
}
