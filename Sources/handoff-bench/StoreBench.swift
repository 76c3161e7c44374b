import Foundation
import Handoff
import HandoffCLI
import HandoffStore
import HandoffWire
import PropertyList

/// `handoff-bench kv-writer NAME SETS KEYS EVERY_MS START_AT HOLD_S`: one writer of the
/// key-value store for `bench/kv_bench.py`, on the real network (the options `baton` reads from
/// its environment: `BATON_KEY`, the identity under `XDG_CONFIG_HOME`), holding store `bench` in
/// memory. At Unix time START_AT it sets `k0`…`k(KEYS-1)` in turn, SETS times, EVERY_MS apart, to
/// `NAME-i`; then for HOLD_S seconds it holds the store and answers peers. It prints one JSON
/// line per event, with `t` its Unix time: `set` (key), `change` (reason, keys), `done`, `digests`
/// (hex, each time they change), and at the end `end` (conflicts seen).
enum StoreBench {
    @MainActor
    static func writer(_ arguments: [String]) async throws {
        guard arguments.count >= 6, let sets = Int(arguments[1]), let keys = Int(arguments[2]), keys > 0,
            let every = Double(arguments[3]), let startAt = Double(arguments[4]), let hold = Double(arguments[5])
        else {
            FileHandle.standardError.write(Data("usage: handoff-bench kv-writer NAME SETS KEYS EVERY_MS START_AT HOLD_S\n".utf8))
            exit(64)
        }
        let name = arguments[0]
        let session = try await PeerSession(
            options: try NetworkOptions.parse(["--name", name]), app: "handoff-bench", appVersion: "0")
        let sync = StoreSync(center: session.center, folder: nil)
        sync.start()
        let store = try sync.store(named: "bench")
        var conflicts = 0
        let changes = store.changes()
        let watcher = Task { @MainActor in
            for await change in changes {
                if change.reason == .conflict { conflicts += change.keys.count }
                emit(["event": "change", "reason": change.reason.rawValue, "keys": change.keys.count])
            }
        }
        let start = Date(timeIntervalSince1970: startAt)
        if start > Date() { try await Task.sleep(for: .seconds(start.timeIntervalSinceNow)) }
        for i in 0..<sets {
            let key = "k\(i % keys)"
            try store.set(.string("\(name)-\(i)"), forKey: key)
            emit(["event": "set", "key": key])
            if every > 0 { try await Task.sleep(for: .milliseconds(every)) }
        }
        emit(["event": "done"])
        var last: [UInt8] = []
        let end = Date().addingTimeInterval(hold)
        while Date() < end {
            let digests = store.digests.bytes
            if digests != last {
                emit(["event": "digests", "digests": digests.map { String(format: "%02x", $0) }.joined()])
                last = digests
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        watcher.cancel()
        emit(["event": "end", "conflicts": conflicts, "keys": store.usage.keys])
        sync.stop()
        await session.shutdown()
    }

    /// One JSON line on standard output, with the time.
    static func emit(_ fields: [String: Any]) {
        var line = fields
        line["t"] = Date().timeIntervalSince1970
        guard let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
