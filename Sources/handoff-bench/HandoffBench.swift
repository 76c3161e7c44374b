import Crypto
import Foundation
import Handoff
import PropertyList
import HandoffWire

/// Measures the datagram codec: seal+encode and open+decode of ANNOUNCE records whose
/// userInfo is about 100 B, 1 KB and 50 KB; then the state of large editing records (1 MB and
/// 16 MB of mixed-script text): what a save costs the source (encode + SHA-256) and what a
/// continue costs the receiver once the bytes are in (SHA-256 + read + decode).
/// Run: `swift run -c release handoff-bench` (`handoff-bench stream` for the state stream).
@main
struct HandoffBench {
    static func record(userInfoBytes: Int) -> ActivityRecord {
        // An editing session of roughly the requested size. ASCII, because a binary plist
        // stores a string with any other character as UTF-16: twice the bytes.
        let line = "The quick brown fox jumps over the lazy dog.\n"
        var text = ""
        while text.utf8.count < userInfoBytes - 40 { text += line }
        text = String(text.prefix(max(0, userInfoBytes - 40)))
        return ActivityRecord(
            activityID: UUID().uuidString, activityType: "dev.baton.editing", revision: 42, savedAt: Date(),
            userInfo: ["text": .string(text), "cursorLine": 3, "cursorColumn": 17, "fileName": "notes.txt"],
            title: "Editing notes.txt",
            peer: PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0"))
    }

    /// Median of `rounds` timings of `iterations` calls, in microseconds per call.
    static func measure(iterations: Int, rounds: Int = 7, _ body: () -> Void) -> Double {
        var results: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            for _ in 0..<iterations { body() }
            let elapsed = ContinuousClock.now - start
            let (s, atto) = elapsed.components
            results.append((Double(s) * 1e6 + Double(atto) / 1e12) / Double(iterations))
        }
        return results.sorted()[results.count / 2]
    }

    static func main() async throws {
        // `handoff-bench stream [megabytes] [rounds] [fetch]`: the state stream against plain TCP
        // and its pieces; with `fetch`, the state stream alone.
        // `handoff-bench editor [megabytes] [rounds]`: the editor's model (open, a key, undo).
        // `handoff-bench key-path FILE [keys] [rounds] [gap-ms]`: a letter typed in FILE, update + view (KeyPathBench).
        // `handoff-bench shell-output [megabytes] [rounds]`: a flood of output into the keeper's
        // emulator, beside libvterm's parser and state alone (ShellOutputBench).
        // `handoff-bench shell-path [rounds]`: a shell session's key and echo, piece by piece (ShellPathBench).
        // `handoff-bench long-line [kilobytes]`: a key in one long line, at its start and end (LongLineBench).
        // `handoff-bench receive [N] [news] [frame|sync]`: datagrams heard, transport to directory (ReceiveBench).
        // `handoff-bench kv-writer …`: one writer of the key-value store on the real network (StoreBench).
        // `handoff-bench wake [rounds]`: a system call, a page fault and a wake-up on this machine (MachineBench).
        if CommandLine.arguments.dropFirst().first == "wake-echo" { MachineBench.echo() }
        if CommandLine.arguments.dropFirst().first == "wake" {
            return try MachineBench.run(rounds: CommandLine.arguments.dropFirst(2).compactMap { Int($0) }.first ?? 5)
        }
        if CommandLine.arguments.dropFirst().first == "kv-writer" {
            return try await StoreBench.writer(Array(CommandLine.arguments.dropFirst(2)))
        }
        if CommandLine.arguments.dropFirst().first == "editor" {
            let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
            return EditorBench.run(megabytes: numbers.first ?? 16, rounds: numbers.dropFirst().first ?? 200)
        }
        if CommandLine.arguments.dropFirst().first == "key-path", let path = CommandLine.arguments.dropFirst(2).first {
            let numbers = CommandLine.arguments.dropFirst(3).compactMap { Int($0) }
            return try KeyPathBench.run(
                path: path, keys: numbers.first ?? 300, rounds: numbers.dropFirst().first ?? 5, gapMilliseconds: numbers.dropFirst(2).first ?? 0)
        }
        if CommandLine.arguments.dropFirst().first == "shell-output" {
            let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
            return ShellOutputBench.run(megabytes: numbers.first ?? 100, rounds: numbers.dropFirst().first ?? 3)
        }
        if CommandLine.arguments.dropFirst().first == "shell-path" {
            return try ShellPathBench.run(rounds: CommandLine.arguments.dropFirst(2).compactMap { Int($0) }.first ?? 7)
        }
        if CommandLine.arguments.dropFirst().first == "long-line" {
            return LongLineBench.run(kilobytes: CommandLine.arguments.dropFirst(2).compactMap { Int($0) }.first ?? 1270)
        }
        if CommandLine.arguments.dropFirst().first == "receive" {
            let arguments = CommandLine.arguments.dropFirst(2)
            return try await ReceiveBench.run(
                count: arguments.compactMap { Int($0) }.first ?? 20_000, news: arguments.contains("news"),
                frame: arguments.contains("frame"), sync: arguments.contains("sync"))
        }
        if CommandLine.arguments.dropFirst().first == "stream" {
            let arguments = CommandLine.arguments.dropFirst(2)
            let numbers = arguments.compactMap { Int($0) }
            return try await StreamBench.run(
                megabytes: numbers.first ?? 16, rounds: numbers.dropFirst().first ?? 9, fetchOnly: arguments.contains("fetch"))
        }
        // Version 3 is what Baton speaks; version 2's codec (no signature, one key for the group)
        // is measured beside it in the same run, since the machine is too noisy for figures apart.
        let groupKey = GroupKey.random()
        let identity = DeviceIdentity.random()
        let codec = DatagramCodec(keys: GroupKeys(current: groupKey))
        let sender = SenderID.random(device: identity.publicIdentity.deviceID)
        let listed: (DeviceTag) -> PublicIdentity? = { _ in identity.publicIdentity }
        let codecV2 = DatagramCodecV2(groupKey: groupKey)
        let senderV2 = SenderID.random()
        var sink = 0
        // `handoff-bench decode [N]`: N opens+verifies+decodes of the 1 KB datagram, N without the
        // signature, N of version 2's codec, then N plist reads of
        // its plaintext, and nothing else: short enough to count instructions under
        // `valgrind --tool=callgrind`, which is repeatable on a busy machine where timings are not.
        if CommandLine.arguments.dropFirst().first == "decode" {
            let count = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100_000
            let message = HandoffMessage.announce(record(userInfoBytes: 1_000))
            let now = Date()
            let datagram = try codec.encode(message, identity: identity, senderID: sender, sequence: 1, sentAt: now)
            let datagramV2 = try codecV2.encode(message, senderID: senderV2, sequence: 1, sentAt: now)
            let plaintext = DatagramCodec.plaintext(message, sentAt: now)
            let reader = BinaryPropertyListReader()
            let decode = measure(iterations: count, rounds: 1) {
                if case .announce(let r)? = try? codec.decode(datagram, now: now, identity: listed).message { sink &+= r.revision }
            }
            let decodePlain = measure(iterations: count, rounds: 1) {
                if let opened = try? codec.open(datagram), case .announce(let r)? = try? codec.decode(opened, now: now).message {
                    sink &+= r.revision
                }
            }
            let decodeV2 = measure(iterations: count, rounds: 1) {
                if case .announce(let r)? = try? codecV2.decode(datagramV2, now: now).message { sink &+= r.revision }
            }
            let read = measure(iterations: count, rounds: 1) {
                if case .dictionary(let d)? = try? reader.read(plaintext) { sink &+= d.count }
            }
            print(String(format: "1 KB datagram, %d times: v3 open+verify+decode %.2f µs, v3 open+decode %.2f µs, v2 open+decode %.2f µs, plist read alone %.2f µs", count, decode, decodePlain, decodeV2, read))
            if sink == 42 { print("") }
            return
        }
        #if DEBUG
        let build = "DEBUG build (figures for BENCHMARKS.md come from -c release)"
        #else
        let build = "release build"
        #endif
        // `handoff-bench large` runs the large-state part only (for profiling it).
        let largeOnly = CommandLine.arguments.dropFirst().first == "large"
        print("Baton datagram codec, \(build), median of 7 rounds")
        print("userInfo   datagram   seal+sign+encode   open+verify+decode   (v2: datagram, seal+encode, open+decode)")
        for size in largeOnly ? [] : [100, 1_000, 50_000] {
            let message = HandoffMessage.announce(record(userInfoBytes: size))
            let now = Date()
            let datagram = try codec.encode(message, identity: identity, senderID: sender, sequence: 1, sentAt: now)
            let datagramV2 = try codecV2.encode(message, senderID: senderV2, sequence: 1, sentAt: now)
            let iterations = size > 10_000 ? 2_000 : 20_000
            var sequence: UInt64 = 1
            _ = measure(iterations: iterations / 10, rounds: 1) {
                _ = try? codec.encode(message, identity: identity, senderID: sender, sequence: 1, sentAt: now)
            }
            let encode = measure(iterations: iterations) {
                sequence += 1
                sink &+=
                    (try? codec.encode(message, identity: identity, senderID: sender, sequence: sequence, sentAt: now))?
                    .count ?? 0
            }
            let decode = measure(iterations: iterations) {
                if case .announce(let r)? = try? codec.decode(datagram, now: now, identity: listed).message { sink &+= r.revision }
            }
            let encodeV2 = measure(iterations: iterations) {
                sequence += 1
                sink &+= (try? codecV2.encode(message, senderID: senderV2, sequence: sequence, sentAt: now))?.count ?? 0
            }
            let decodeV2 = measure(iterations: iterations) {
                if case .announce(let r)? = try? codecV2.decode(datagramV2, now: now).message { sink &+= r.revision }
            }
            print(String(format: "%8d B %8d B %14.2f µs %17.2f µs   (v2: %d B, %.2f µs, %.2f µs)",
                size, datagram.count, encode, decode, datagramV2.count, encodeV2, decodeV2))
        }
        print("")
        print("Large state (mixed-script text), median of 5 rounds")
        print("    text        state   save: encode+SHA-256   continue: SHA-256+read+decode")
        let pattern = Array("Grüße, 你好 👋 — plain ASCII makes up most lines of a file.\n")
        for megabytes in [1, 16] {
            var text = ""
            text.reserveCapacity(megabytes << 20)
            var i = 0
            while text.utf8.count < (megabytes << 20) - 64 {
                text.append(pattern[i % pattern.count])
                i += 1
            }
            var record = record(userInfoBytes: 100)
            record.userInfo["text"] = .string(text)
            let state = DatagramCodecV2.plaintext(.announce(record), sentAt: record.savedAt)
            let limits = BinaryPropertyListReader.Limits(maxBytes: 64 << 20)
            let save = measure(iterations: 1, rounds: 5) {
                let bytes = DatagramCodecV2.plaintext(.announce(record), sentAt: record.savedAt)
                sink &+= Int(SHA256.hash(data: bytes).first(where: { _ in true }) ?? 0)
            }
            let restore = measure(iterations: 1, rounds: 5) {
                sink &+= Int(SHA256.hash(data: state).first(where: { _ in true }) ?? 0)
                if case .dictionary(let payload)? = try? BinaryPropertyListReader(limits: limits).read(state),
                    case .announce(let r)? = try? HandoffMessage.decode(kind: .announce, payload: payload).message
                {
                    sink &+= r.revision
                }
            }
            print(String(format: "%5d MB %9d B %19.1f ms %29.1f ms", megabytes, state.count, save / 1000, restore / 1000))
        }
        if sink == 42 { print("") }  // keeps the work from being optimised away
    }
}
