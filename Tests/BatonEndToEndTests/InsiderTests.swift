import Foundation
import Testing

extension LabFaultTests.UnderLoad {
    /// Issue 9, between real programs: what a key holder (or a buggy peer) can send, sealed with
    /// the group key, by `scripts/hostile.py` from h2. The victims are a `baton` counter (`e2e-a`,
    /// in tmux) and `baton monitor` on h1 or h3; h3 continues.
    ///
    /// In protocol 3 (PROTOCOL.md section 7, "What a listed device can do, and what a key alone
    /// can do") hostile.py signs as the lab's one device (`E2E.identity`, listed): the strongest
    /// insider, bounded by the byte budget, `notOwner`, the clamp on `savedAt` and the QUERY
    /// limits. The forged sender id is sent by a key holder without that identity: `badSignature`.
    ///
    /// These tests state the behaviour issue 9 asks for. Before its fixes they fail, each saying
    /// what happened instead (the `[figure]` lines are the record). Needs root, `ip netns`, tmux
    /// and python3 with `cryptography`; each test skips, saying why, when one is missing.
    @Suite("Insiders: expansion floods, forged senders, hijacked revisions, savedAt, QUERY floods, escapes (issue 9)",
        .timeLimit(.minutes(3)))
    struct Insiders {
        /// Issue 9's "Done when": a monitor and a counter stay under this peak (VmHWM) …
        static let peakLimitKilobytes = 80 * 1024
        /// … and are idle again this soon after the flood's last datagram (see `ProcessMeter.idleSince`).
        static let idleWithin = 1.0

        // MARK: - Expansion

        @Test("Expansion floods (one string or one array referenced thousands of times): the monitor and the counter stay under 80 MB, are idle within 1 s of the last datagram, and the counter still hands off",
            arguments: ["expand-shared", "expand-nested"])
        func expansionFlood(kind: String) throws {
            try Ring.run { ring in try Self.expansionFlood(kind, on: ring) }
        }

        /// `kind` from h2 at a counter and a text monitor (its output to /dev/null: before issue 9
        /// each line held every unfolded copy) on h1, both sampled every 50 ms and killed above 1 GB
        /// to spare the machine; then `baton peer continue` on h3.
        static func expansionFlood(_ kind: String, on ring: Ring) throws {
            // expand-shared: 20 datagrams of 36.9 KB, each 217.5 MB unfolded (H1: 11 took a monitor to
            // 302 MB); expand-nested: 4 of 41.4 KB, each 250,000 values and 10 GB unfolded. Each activity
            // twice in a row: news, then an identical repeat that receivers compare with what they hold.
            let (count, rate) = kind == "expand-shared" ? (20, 20.0) : (4, 8.0)
            let a = try ring.counter()
            let monitor = try FileOutputProcess(
                "monitor", lab: ring.lab, host: 1, [ring.baton, "monitor", "--name", "e2e-m"], to: "/dev/null")
            defer { monitor.stop() }
            try ring.lab.waitForGroupMembers(host: 1, count: 2)
            let meters = [("monitor", ProcessMeter(pid: monitor.pid)), ("counter", ProcessMeter(pid: try a.pid()))]
            defer { for (_, meter) in meters { meter.stop() } }
            let baselines = try meters.map { try $0.1.waitForBaseline() }

            let hostile = try Hostile.start(kind, count: count, rate: rate, seed: 9, prepared: true, lab: ring.lab, host: 2)
            defer { hostile.stop() }
            let started = Date()
            let summary = try Hostile.finish(hostile, timeout: Double(count) / rate * 3 + 30)
            let ended = Date()
            // Long enough to tell "idle within 1 s" (and 0.5 s of it held) from not, and a little more for the figure.
            _ = try? Wait.until("the monitor and the counter to be idle", timeout: 3, interval: 0.1) {
                zip(meters, baselines).allSatisfy { meter, baseline in
                    meter.1.killedAt != nil || meter.1.idleSince(ended, baselineKilobytes: baseline) != nil
                }
            }
            #expect(summary.sent == count)

            for ((role, meter), baseline) in zip(meters, baselines) {
                let idle = meter.idleSince(ended, baselineKilobytes: baseline).map { $0.timeIntervalSince(ended) }
                let peak = meter.killedAt?.kilobytes ?? meter.peakKilobytes
                let killed = meter.killedAt != nil ? " (over 1 GB: killed)" : ""
                Figures.record("\(kind), \(count) at \(Int(rate))/s: the \(role)'s peak RSS (VmHWM)",
                    String(format: "%.1f MB", Double(peak) / 1024) + killed, target: "< 80 MB")
                Figures.record("\(kind): the \(role) idle after the last datagram",
                    idle.map(Figures.seconds) ?? "not within 2.5 s", target: "≤ 1 s")
                print("[figure]   \(role): " + String(format: "%.0f %% of a core during the flood (%.1f s), %.2f CPU s in the 2.5 s after; RSS before %.1f MB",
                    meter.cpuPercent(from: started, to: ended), ended.timeIntervalSince(started),
                    meter.cpuSeconds(from: ended, to: ended.addingTimeInterval(2.5)), Double(baseline) / 1024))
                #expect(meter.killedAt == nil && peak < Self.peakLimitKilobytes,
                    "\(kind): the \(role) peaked at \(peak / 1024) MB\(killed)")
                #expect(idle.map { $0 <= Self.idleWithin } == true,
                    "\(kind): the \(role) was not idle within \(Self.idleWithin) s of the last datagram (\(idle.map(Figures.seconds) ?? "not within 2.5 s"))")
            }
            let handoff = try ring.continueCounter(from: "e2e-a")
            Figures.record("\(kind): baton peer continue of e2e-a on h3 after the flood", handoff.description,
                target: "count 1, 'Continued on' shown")
            #expect(handoff.count == 1, "\(kind): after the flood: \(handoff)")
            if handoff.count == 1 {
                #expect((try? a.waitForScreen(containing: "Continued on e2e-c", timeout: 5)) != nil,
                    "a never said it was continued:\n\(a.screenDump())")
            }
        }

        // MARK: - One peer against another

        @Test("A forged sender id with sequence 2^64-1 does not silence the peer it names: its next change is heard, and a baton that received the forgery continues it")
        func forgedSenderDoesNotSilence() throws {
            try Ring.run { ring in try Self.forgedSender(on: ring) }
        }

        static func forgedSender(on ring: Ring) throws {
            let a = try ring.counter()
            let (b, monitor) = try ring.witnesses()
            defer { monitor.stop() }
            try monitor.waitForEvent("e2e-a's count 1") { $0.peerName == "e2e-a" && $0.int("count") == 1 }
            let mark = monitor.mark

            let before = try monitor.waitForCounts("the monitor's counts") { _ in true }

            // hostile.py sniffs e2e-a's sender id and sends WITHDRAWs of nothing under it, sequence
            // 2^64-1, signed by an identity of its own (it holds the group key, not e2e-a's identity).
            let summary = try Hostile.run(
                "forge-sender", count: 3, rate: 10, identity: nil, seed: 9, extra: ["--victim-name", "e2e-a"],
                lab: ring.lab, host: 2)
            #expect(summary.expected == ["badSignature": 3], "hostile.py expected \(summary.expected)")
            let counted = try? monitor.waitForCounts("the forgeries counted as badSignature", since: mark, timeout: 5) {
                $0.delta("badSignature", since: before) >= 3
            }
            try a.type("+")
            try a.waitForScreen("a's counter at 2") { EndToEndTests.screen($0, showsCount: 2) }
            let heard = try? monitor.waitForEvent("e2e-a's count 2", since: mark, timeout: 3) {
                $0.peerName == "e2e-a" && $0.int("count") == 2
            }
            // Once continued, e2e-a follows b's session and withdraws its own (a live session): only
            // what came before the continue counts.
            let continueMark = monitor.mark
            let continued = try ring.nearbyContinue(b, count: 2, source: a)
            let gone = monitor.events(from: mark, to: continueMark).filter { $0.event == "gone" && $0.peerName == "e2e-a" }

            Figures.record("forged sender id (2^64-1): the monitor hears e2e-a's next change",
                heard.map { _ in "yes" } ?? "no (dropped as replays)", target: "yes, within 3 s")
            Figures.record("forged sender id: baton on h3 continues e2e-a from its nearby list", continued.description,
                target: "count 2")
            print("[figure]   hostile.py: \(summary.expected); gone events for e2e-a: \(gone.count)")
            #expect(counted != nil, "the monitor did not count the 3 forgeries as badSignature: \(monitor.latestCounts?.rejected ?? [:])")
            #expect(heard != nil, "the monitor no longer hears e2e-a after its sender id was forged:\n\(monitor.transcript())")
            #expect(continued.succeeded, "b could not continue e2e-a after the forgery: \(continued)")
            #expect(gone.isEmpty, "the monitor forgot e2e-a after the forgery")
        }

        @Test("Another sender announcing e2e-a's activity id (a takeover, then revision Int64.max) does not hide it: its changes are still heard, a baton continues its count, and its WITHDRAW still removes it")
        func hijackedRevisionDoesNotHide() throws {
            try Ring.run { ring in try Self.hijackedRevision(on: ring) }
        }

        static func hijackedRevision(on ring: Ring) throws {
            let a = try ring.counter()
            let (b, monitor) = try ring.witnesses()
            defer { monitor.stop() }
            let first = try monitor.waitForEvent("e2e-a's count 1") { $0.peerName == "e2e-a" && $0.int("count") == 1 }
            let id = first.activityID
            let before = try monitor.waitForCounts("the monitor's counts") { _ in true }
            let mark = monitor.mark

            // hostile.py sniffs e2e-a's activity id and revision: 10 takeovers (revision + 1), then
            // Int64.max, 20 a second, from a sender of its own, until stopped.
            let hostile = try Hostile.start(
                "hijack-revision", count: 600, rate: 20, seed: 9, extra: ["--victim-name", "e2e-a"], lab: ring.lab, host: 2)
            defer { hostile.stop() }
            try monitor.waitForCounts("the takeovers and the first Int64.max ones", since: mark, timeout: 10) {
                $0.total - before.total >= 16
            }
            try a.type("+")
            try a.waitForScreen("a's counter at 2") { EndToEndTests.screen($0, showsCount: 2) }
            let heard = try? monitor.waitForEvent("e2e-a's count 2", since: mark, timeout: 3) {
                $0.peerName == "e2e-a" && $0.int("count") == 2
            }
            let continueMark = monitor.mark
            let continued = try ring.nearbyContinue(b, count: 2, source: a)
            // e2e-a's entry taken over (its record replaced by another peer's), or forgotten, before the
            // continue. (An entry of the hijacker's own beside it, were the directory keyed by sender
            // too, hides nothing.)
            let hijacked = monitor.events(from: mark, to: continueMark).filter {
                $0.activityID == id && (($0.event == "changed" && $0.peerName != "e2e-a") || $0.event == "gone")
            }

            // The owner's WITHDRAW must remove the activity at once, while the hijacker still sends:
            // continued, e2e-a follows b and withdraws its own (a live session); else it quits now.
            // Withdrawn, the entry owns nothing, and the hijacker's next ANNOUNCE (50 ms later)
            // takes the id. The monitor prints what changed between two looks at its directory:
            // when both came between the same two, it prints the id changed to the hijacker's,
            // not gone (a CI run under load did). Either says e2e-a's entry went.
            func removedFromA(_ event: ListenEvent) -> Bool {
                event.activityID == id && (event.event == "gone" || event.peerName != "e2e-a")
            }
            let following = try? monitor.waitForEvent("e2e-a's activity gone as it follows", since: continueMark, timeout: 3,
                where: removedFromA)
            let quitMark = monitor.mark
            let screenBeforeQuit = following == nil ? a.screenDump() : ""
            try a.type("q")
            let withdrawn = following ?? (try? monitor.waitForEvent("e2e-a's activity gone", since: quitMark, timeout: 1,
                where: removedFromA))
            let stillSending = hostile.poll() == nil
            hostile.stop()

            Figures.record("hijacked activity id: the monitor hears e2e-a's next change",
                heard.map { _ in "yes" } ?? "no", target: "yes, within 3 s")
            Figures.record("hijacked activity id: the monitor showed e2e-a's entry taken over or gone",
                hijacked.isEmpty ? "never" : "\(hijacked.count) times, e.g. \(hijacked[0].event) to \(hijacked[0].peerName) count \(hijacked[0].int("count") ?? -1) revision \(hijacked[0].revision)",
                target: "never")
            Figures.record("hijacked activity id: baton on h3 continues e2e-a from its nearby list", continued.description,
                target: "count 2")
            Figures.record("hijacked activity id: e2e-a's WITHDRAW removes it (the hijacker still sending)",
                withdrawn.map { _ in "yes, within 1 s" } ?? "no", target: "within 1 s")
            #expect(heard != nil, "the monitor did not hear e2e-a's change during the hijack:\n\(monitor.transcript())")
            #expect(hijacked.isEmpty, "the monitor showed e2e-a's activity taken over by another sender, or gone: \(hijacked.map(\.fields))")
            #expect(continued.succeeded, "b could not continue e2e-a's count during the hijack: \(continued)")
            #expect(withdrawn != nil, """
                e2e-a's WITHDRAW did not remove its activity within 1 s during the hijack; the monitor's events of it \
                since the hijack began:
                \(monitor.events(since: mark).filter { $0.activityID == id }.map(\.fields))
                the monitor's counts: \(monitor.latestCounts.map { "\($0)" } ?? "none")
                a's screen before q:
                \(screenBeforeQuit)
                """)
            #expect(stillSending, "the hijacker had stopped before the WITHDRAW: the check proves nothing")
        }

        @Test("A savedAt one year ahead is clamped to arrival plus the allowed skew (60 s); the counter still hands off")
        func futureSavedAtIsClamped() throws {
            try Ring.run { ring in try Self.futureSavedAt(on: ring) }
        }

        static func futureSavedAt(on ring: Ring) throws {
            _ = try ring.counter()
            let monitor = try LabProcess("monitor", lab: ring.lab, host: 3, [ring.baton, "monitor", "--json", "--name", "e2e-m"])
            defer { monitor.stop() }
            try monitor.waitForEvent("e2e-a's count 1") { $0.peerName == "e2e-a" && $0.int("count") == 1 }
            let before = try monitor.waitForCounts("the monitor's counts") { _ in true }
            let mark = monitor.mark
            // 50 a second, so that a continue's 30 ms gathering window hears the forger too.
            let count = 200
            let hostile = try Hostile.start("future-savedat", count: count, rate: 50, seed: 9, lab: ring.lab, host: 2)
            defer { hostile.stop() }
            let forged = try? monitor.waitForEvent("the forger's record", since: mark, timeout: 3) {
                $0.title == "From the future"
            }
            // Which counter a continue without --from takes while the forger is heard (a figure only:
            // within 60 s of its first arrival the clamped forger is still the newest).
            let any = try ring.continueCounter(from: nil)
            let handoff = try ring.continueCounter(from: "e2e-a")
            _ = try Hostile.finish(hostile, timeout: 30)

            if let forged, let savedAt = Self.date(forged.fields["savedAt"]), let printed = Self.date(forged.fields["time"]) {
                let ahead = savedAt.timeIntervalSince(printed)
                Figures.record("savedAt one year ahead: as the monitor holds it, ahead of its clock",
                    String(format: "%.0f s", ahead), target: "≤ 60 s (+1 s for the print)")
                #expect(ahead <= 61, "the forger's savedAt is held \(Int(ahead)) s ahead: not clamped to arrival + 60 s")
            } else {
                // Refused instead of clamped: then every forged datagram was counted as rejected.
                let after = try monitor.waitForCounts("the forged datagrams counted", since: mark, timeout: 5) {
                    $0.rejectedTotal - before.rejectedTotal >= count
                }
                Figures.record("savedAt one year ahead", "refused (\(after.rejectedTotal - before.rejectedTotal) rejected)",
                    target: "clamped, or refused")
            }
            print("[figure]   continue of any counter while the forger is heard: \(any)")
            #expect(handoff.count == 1, "continuing e2e-a while the forger is heard: \(handoff)")
        }

        /// A JSON date of the monitor (ISO 8601, fractional seconds) as a Date.
        static func date(_ value: Any?) -> Date? {
            guard let text = value as? String else { return nil }
            let format = ISO8601DateFormatter()
            format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return format.date(from: text) ?? ISO8601DateFormatter().date(from: text)
        }

        // MARK: - QUERY floods

        /// The most ANNOUNCEs e2e-a may send during a 5 s flood of 10,000 QUERYs from 10,000 sender
        /// ids, besides its own repeats: `QueryAnswerLimit` gives 8 at once and 8 a second, 48 in
        /// 5 s (60 leaves room for a flood that runs a little long). Before it, every QUERY that
        /// arrived while no answer was pending got one, 0–20 ms later: about 90 a second.
        static let answersFromManyAllowed = 60
        /// The same from one sender id: one answer per 250 ms to one asker, 21 in 5 s.
        static let answersToOneAllowed = 22

        @Test("QUERY floods (10,000 in 5 s from 10,000 sender ids, then from one): the answers are bounded per asker and in total; the counter still hands off")
        func queryFloodAnswersBounded() throws {
            try Ring.run { ring in try Self.queryFlood(on: ring) }
        }

        static func queryFlood(on ring: Ring) throws {
            let a = try ring.counter()
            var results: [(String, Int, Int, Double)] = []
            for (label, extra, allowed) in [
                ("10,000 sender ids", [String](), answersFromManyAllowed), ("one sender id", ["--senders", "1"], answersToOneAllowed),
            ] {
                let sniffer = try BridgeSniffer(lab: ring.lab)
                defer { sniffer.stop() }
                let summary: Hostile.Summary
                do {
                    let hostile = try Hostile.start(
                        "query-flood", count: 10_000, rate: 2000, seed: 9, prepared: true, extra: extra, lab: ring.lab, host: 2)
                    defer { hostile.stop() }
                    summary = try Hostile.finish(hostile, timeout: 40)
                }
                let tally = try sniffer.finish()
                let announces = tally.count(host: 1, kind: 1)
                let repeats = LabFaultTests.UnderLoad.Attacks.genuineRepeats(in: summary.seconds)
                results.append((label, announces, allowed + repeats, summary.seconds))
                Figures.record("QUERY flood from \(label) (\(summary.sent) in \(String(format: "%.1f", summary.seconds)) s): ANNOUNCEs e2e-a sent",
                    "\(announces)", target: "≤ \(allowed) answers + \(repeats) of its own repeats")
                print("[figure]   bridge: \(tally)")
                #expect(summary.sent == 10_000)
                #expect(tally.socketDrops == 0, "the capture missed frames: \(tally)")
            }
            for (label, announces, allowed, _) in results {
                #expect(announces <= allowed, "QUERY flood from \(label): e2e-a sent \(announces) ANNOUNCEs, over \(allowed)")
            }
            let handoff = try ring.continueCounter(from: "e2e-a")
            #expect(handoff.count == 1, "after the QUERY floods: \(handoff)")
            if handoff.count == 1 { try a.waitForScreen(containing: "Continued on e2e-c") }
        }

        // MARK: - Escapes in every field

        @Test("Escape sequences, C1, bidi, separators, zero-width and tag characters in every peer-controlled field reach no output raw: monitor text and JSON, the log, continue errors; an impostor's name is told apart")
        func escapesInEveryFieldStayOut() throws {
            try Ring.run { ring in try Self.escapesAll(on: ring) }
        }

        static func escapesAll(on ring: Ring) throws {
            let log = ring.folder.path("h1/a.log")
            let a = try ring.counter(["--log-file", log])
            let text = try FileOutputProcess(
                "monitor-text", lab: ring.lab, host: 3, [ring.baton, "monitor", "--name", "e2e-mt"],
                to: ring.folder.path("h3/monitor.txt"))
            defer { text.stop() }
            let json = try FileOutputProcess(
                "monitor-json", lab: ring.lab, host: 3, [ring.baton, "monitor", "--json", "--name", "e2e-mj"],
                to: ring.folder.path("h3/monitor.json"))
            defer { json.stop() }
            func peerName(_ line: [String: Any]) -> String { (line["peer"] as? [String: Any])?["name"] as? String ?? "" }
            var id = ""
            try json.waitForOutput("e2e-a in the JSON monitor") { _ in
                id = json.jsonLines.first { peerName($0) == "e2e-a" }?["activityID"] as? String ?? ""
                return !id.isEmpty
            }
            let specimens = try Self.specimens(victim: "e2e-a", activity: id)
            func name(_ label: String) throws -> String {
                try #require(specimens.first { $0.label == label }?.name, "hostile.py has no \(label) specimen")
            }

            // Every specimen twice a second for 15 s, e2e-a's CONTINUED among them.
            let hostile = try Hostile.start(
                "escapes-all", count: 10 * 30, rate: 20, seed: 9,
                extra: ["--victim-activity", id, "--victim-name", "e2e-a"], lab: ring.lab, host: 2)
            defer { hostile.stop() }
            let shown = ["escapes-title", "escapes-peer", "escapes-userInfo", "escapes-required", "escapes-offer", "Counter: 42"]
            try text.waitForOutput("every accepted specimen in the text monitor") { bytes in
                let output = String(decoding: bytes, as: UTF8.self)
                return shown.allSatisfy(output.contains)
            }
            try json.waitForOutput("every accepted specimen in the JSON monitor") { _ in
                let names = json.jsonLines.map(peerName)
                return ["escapes-title", "escapes-peer", "escapes-userInfo", "escapes-required", "escapes-offer"]
                    .allSatisfy { prefix in names.contains { $0.hasPrefix(prefix) } }
                    && json.jsonLines.contains { $0["title"] as? String == "Counter: 42" }
            }
            try a.waitForScreen(containing: "Continued on escapes-continued")

            // Continues whose messages carry peer text. On a pseudo-terminal of their own (baton
            // refuses to start without one), without TERM, so that a continue that succeeds then
            // fails to open the terminal: it has written its log line by then, and ends. What it
            // prints (stdout and stderr both reach the terminal) is read with the terminal's
            // CR LF turned back into LF.
            var outputs: [(String, Data)] = []
            func attempt(_ label: String, _ arguments: [String], expect exercised: [String]) throws {
                let logFile = ring.folder.path("h3/continue-\(label).log")
                let result = try Command.run(
                    ring.lab.command(host: 3, Self.onTerminal([ring.baton, "--continue-activity"] + arguments + [
                        "--wait", "5", "--name", "e2e-c-\(label)", "--log-file", logFile,
                    ])), environment: LabFaultTests.commandEnvironment, check: false)
                let logged = (try? Data(contentsOf: URL(fileURLWithPath: logFile))) ?? Data()
                // The progress line's own carriage returns are Baton's, not peer text: a redraw
                // starts with one ("\rConnecting…", "\r███░"), the clear is CR, blanks, CR.
                let printed = result.output.replacingOccurrences(of: "\r\n", with: "\n")
                    .replacingOccurrences(of: "\r *\r", with: "", options: .regularExpression)
                    .replacingOccurrences(of: "\r(?=Connecting…|[█░])", with: "", options: .regularExpression)
                outputs += [("continue \(label): terminal", Data(printed.utf8)),
                            ("continue \(label): stderr", Data(result.errorOutput.utf8)), ("continue \(label): log", logged)]
                let said = printed + result.errorOutput + String(decoding: logged, as: UTF8.self)
                print("[figure]   continue \(label): exit \(result.status): " + PeerText.escaped(said.prefix(300).unicodeScalars))
                #expect(exercised.contains { said.contains($0) },
                    "continue \(label) did not reach the message under test: \(PeerText.escaped(said.unicodeScalars))")
            }
            try attempt("peer", ["dev.baton.counter", "--from", try name("peer")],
                expect: ["continued dev.baton.counter from escapes-peer"])
            try attempt("required", ["dev.baton.counter", "--from", try name("required")],
                expect: ["is missing required userInfo"])
            try attempt("offer", ["dev.baton.editing", "--from", try name("offer")],
                expect: ["Could not fetch the activity from escapes-offer"])
            // Before the receive checks, the type itself is in the error; after them, nothing of it arrives.
            try attempt("type", ["--from", try name("type")],
                expect: ["is not declared", "No continuable activity from escapes-type"])
            hostile.stop()
            text.stop()
            json.stop()

            outputs += [("monitor text", text.bytes), ("monitor --json", json.bytes),
                        ("a's log", (try? Data(contentsOf: URL(fileURLWithPath: log))) ?? Data())]
            let aLog = String(decoding: outputs.last!.1, as: UTF8.self)
            #expect(aLog.contains("continued on escapes-continued"), "a's log has no line of the CONTINUED: \(aLog.suffix(500))")
            var total = 0
            for (label, bytes) in outputs {
                let found = PeerText.forbidden(in: bytes)
                total += PeerText.forbiddenCount(in: bytes)
                #expect(found.isEmpty, "\(label) (\(bytes.count) bytes) holds forbidden characters: \(found.joined(separator: "; "))")
            }
            Figures.record("forbidden characters in every output (monitor text and JSON, logs, continue stderr)",
                "\(total)", target: "0")

            // The impostor (e2e-a + U+200B) must not read as e2e-a in the text monitor: with what a
            // terminal shows as nothing taken out, its line must not say "from e2e-a rev".
            let lines = String(decoding: text.bytes, as: UTF8.self).split(separator: "\n")
            let impostor = lines.filter { $0.contains("Counter: 42") }
            let seen = impostor.map { String(String.UnicodeScalarView($0.unicodeScalars.filter { !PeerText.isInvisible($0) })) }
            #expect(!impostor.isEmpty && seen.allSatisfy { !$0.contains("from e2e-a rev") },
                "the impostor's name reads as e2e-a's: \(impostor.map { PeerText.escaped($0.unicodeScalars) })")
        }

        /// `arguments` run on a pseudo-terminal of their own (Python's `pty`), whose output goes to
        /// standard output; the exit status is the program's.
        static func onTerminal(_ arguments: [String]) -> [String] {
            ["python3", "-c", "import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))"] + arguments
        }

        /// escapes-all's specimens as hostile.py describes them: label and peer name.
        static func specimens(victim: String, activity: String) throws -> [(label: String, name: String)] {
            let result = try Command.run([
                "python3", Hostile.script, "escapes-all", "--count", "0", "--describe", "--victim-name", victim,
                "--victim-activity", activity,
            ])
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            return (object?["specimens"] as? [[String: Any]] ?? []).compactMap { item in
                guard let label = item["label"] as? String, let name = item["name"] as? String else { return nil }
                return (label, name)
            }
        }
    }
}

/// The lab of the insider tests: three hosts and a tmux server. h1 runs the victims, h2 the
/// attacker, h3 the witnesses and the continues. No listener of its own: during an expansion
/// flood one would print (and the test hold) every unfolded record.
struct Ring {
    let baton: String
    let peer: [String]
    let lab: Lab
    let tmux: TmuxHost
    let folder: ScratchFolder

    /// Runs `body` with a fresh ring and removes everything after it; skips (saying why) when root,
    /// `ip netns`, tmux, python3's `cryptography` or a built program is missing.
    static func run(_ body: (Ring) throws -> Void) throws {
        try Hostile.requireUsable()
        let baton = try Binaries.baton()
        let peer = try Binaries.peer()
        try Lab.requireUsable()
        _ = try TmuxHost.requireTmux()
        let lab = try Lab(hosts: 3)
        defer { lab.down() }
        let tmux = try TmuxHost()
        defer { tmux.shutdown() }
        let folder = try ScratchFolder("insider")
        defer { folder.remove() }
        try body(Ring(baton: baton, peer: peer, lab: lab, tmux: tmux, folder: folder))
    }

    /// `baton counter --name e2e-a` on h1, pressed once: it publishes count 1.
    func counter(_ extra: [String] = []) throws -> TmuxSession {
        let a = try tmux.start(
            "a", namespace: lab.namespace(host: 1), command: [baton, "counter", "--name", "e2e-a"] + extra,
            workingDirectory: folder.path("h1"))
        try a.waitForScreen("a's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
        try a.type("+")
        try a.waitForScreen("a's counter at 1") { EndToEndTests.screen($0, showsCount: 1) }
        return a
    }

    /// On h3: `baton counter --name e2e-b` (it receives what h2 sends, and continues from its nearby
    /// list later) and `baton monitor --json`.
    func witnesses() throws -> (TmuxSession, LabProcess) {
        let b = try tmux.start(
            "b", namespace: lab.namespace(host: 3), command: [baton, "counter", "--name", "e2e-b"],
            workingDirectory: folder.path("h3"))
        try b.waitForScreen("b's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
        let monitor = try LabProcess("monitor", lab: lab, host: 3, [baton, "monitor", "--json", "--name", "e2e-m"])
        return (b, monitor)
    }

    /// What `baton peer continue` on h3 got.
    struct Continued: CustomStringConvertible {
        let status: Int32
        let count: Int?
        let peerName: String?
        let said: String

        var description: String {
            status == 0 ? "count \(count.map(String.init) ?? "?") from \(peerName ?? "?")"
                : "failed (exit \(status)): \(said.prefix(200))"
        }
    }

    /// `baton peer continue --type dev.baton.counter [--from NAME]` on h3, as e2e-c.
    func continueCounter(from name: String?) throws -> Continued {
        let result = try Command.run(
            lab.command(host: 3, peer + ["continue", "--type", "dev.baton.counter", "--wait", "5", "--name", "e2e-c"]
                + (name.map { ["--from", $0] } ?? [])),
            environment: LabFaultTests.commandEnvironment, check: false)
        let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        return Continued(
            status: result.status, count: ((object?["userInfo"] as? [String: Any])?["count"] as? NSNumber)?.intValue,
            peerName: object?["peer"] as? String,
            said: PeerText.escaped((result.errorOutput + result.output).unicodeScalars))
    }

    /// How continuing from a baton's nearby list went.
    struct NearbyContinue: CustomStringConvertible {
        /// The list's rows that named e2e-a or the hijacker, or "Nothing nearby".
        let listed: String
        /// The count the continuing baton showed afterwards (of those tried), nil when none.
        let shown: Int?
        let wanted: Int
        let toldSource: Bool

        var succeeded: Bool { shown == wanted && toldSource }
        var description: String {
            "list: \(listed); " + (shown.map { "continued count \($0)" } ?? "continued nothing")
                + (toldSource ? ", source told" : "")
        }
    }

    /// Opens `b`'s nearby list and continues e2e-a's entry (or, when the list has none, the first
    /// entry, as a person would: what took its place); what `b` shows then, and whether `source`
    /// says it was continued on e2e-b.
    func nearbyContinue(_ b: TmuxSession, count: Int, source: TmuxSession) throws -> NearbyContinue {
        try b.type("n")
        // The panel's own title: the status line's "available nearby" notice names e2e-a before the panel is drawn.
        let list = try b.waitForScreen("b's nearby list") { lines in lines.contains { $0.contains("─ Nearby") } }
        let listed = list.filter { $0.contains("e2e-a") || $0.contains("mallory") || $0.contains("Nothing nearby") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " / ")
        guard !list.contains(where: { $0.contains("Nothing nearby") }) else {
            try b.press("Escape")
            return NearbyContinue(listed: listed, shown: nil, wanted: count, toldSource: false)
        }
        // The selected row is marked ▸; move it down to e2e-a's, when it is not there yet.
        if list.contains(where: { $0.contains("e2e-a") }) {
            for _ in 0..<5 {
                let screen = try b.capture()
                if screen.contains(where: { $0.contains("▸") && $0.contains("e2e-a") }) { break }
                try b.press("Down")
                _ = try? b.waitForScreen("the selection to move", timeout: 1) { $0 != screen }
            }
        }
        try b.press("Enter")
        let candidates = [count, 666, count - 1]
        let screen = try? b.waitForScreen("b to show a continued count", timeout: 5) { lines in
            lines.contains { $0.contains("from e2e-a") || $0.contains("from mallory") }
                && candidates.contains { EndToEndTests.screen(lines, showsCount: $0) }
        }
        let shown = screen.flatMap { lines in candidates.first { EndToEndTests.screen(lines, showsCount: $0) } }
        let told = shown != nil && (try? source.waitForScreen(containing: "Continued on e2e-b", timeout: 3)) != nil
        return NearbyContinue(listed: listed, shown: shown, wanted: count, toldSource: told)
    }
}
