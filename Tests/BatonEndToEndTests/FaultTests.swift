import Foundation
import Testing

extension LabFaultTests {
    /// Loss on the receiver, peers that are killed, exit in order or restart, and interfaces.
    @Suite("Faults: loss, killed and restarted peers, interfaces", .serialized, .timeLimit(.minutes(3)))
    struct Faults {
        // MARK: - Loss

        @Test("30 % loss on the receiver: each change is held within 2 s (p99 of 50), never an older revision after a newer",
            .tags(.slow))
        func lossThirtyPercentSlow() throws {
            try Self.lossTrials(percent: 30, target: 2, announcers: 5, every: 2.3)
        }

        @Test("50 % loss on the receiver: each change is held within 5 s (p99 of 50), never an older revision after a newer",
            .tags(.slow))
        func lossFiftyPercentSlow() throws {
            try Self.lossTrials(percent: 50, target: 5, announcers: 10, every: 5.3)
        }

        /// `announcers` ticking `baton peer announce`s in h1 (each changes every `every` seconds)
        /// and `baton peer listen` in h2, which drops `percent` % of the UDP it receives. A trial
        /// is one change: from when its announcer printed `published` to when the listener
        /// showed that revision or a later one. The first 50 changes after start-up are the trials.
        /// (`every` is not a multiple of the 1 s repeat, so changes fall at every phase of it.)
        ///
        /// What makes the targets: a save is repeated every 250 ms for 3 s, then every second,
        /// so 8 sends fall within 2 s of it and 14 within 5 s. A change is late only when all
        /// are lost: 0.3⁸ = 0.007 % at 30 % loss, 0.5¹⁴ = 0.006 % at 50 %. (With one send and
        /// a repeat a second it was 2.7 % and 1.6 %, over what a p99 allows.)
        ///
        /// With `perFrame`, h2 drops frames before IP reassembly (`netlab frameloss`) rather than
        /// datagrams after it (`netlab loss`); a counter's ANNOUNCE is one frame, so the targets hold.
        static func lossTrials(
            percent: Int, target: Double, announcers count: Int, every: Double, perFrame: Bool = false
        ) throws {
            let peer = try Binaries.peer()
            let lab = try Lab(hosts: 2)
            defer { lab.down() }
            if perFrame {
                try lab.setFrameLoss(host: 2, percent: percent)
            } else {
                try lab.setLoss(host: 2, percent: percent)
            }
            let listener = try LabFaultTests.listener(lab, host: 2, peer: peer)
            defer { listener.stop() }
            var announcers: [LabProcess] = []
            defer { for announcer in announcers { announcer.stop() } }
            for index in 1...count {
                announcers.append(try LabFaultTests.announcer(
                    lab, host: 1, peer: peer, name: "e2e-loss-\(index)", every: every))
            }

            // The trials: revisions 2 and later (revision 1 is start-up), the first 50 by time.
            let trialCount = 50
            func changes() -> [(id: String, revision: Int, time: Date)] {
                announcers.flatMap { announcer in
                    announcer.snapshot.compactMap { line in
                        LabFaultTests.published(line).flatMap { $0.revision >= 2 ? ($0.id, $0.revision, line.time) : nil }
                    }
                }.sorted { $0.time < $1.time }
            }
            let changesNeeded = Double(trialCount) / Double(count) * every + every + 10
            try Wait.until("\(trialCount) changes published", timeout: changesNeeded, interval: 0.1) {
                changes().count >= trialCount + count  // a margin so that the first 50 are final
            }
            let trials = Array(changes().prefix(trialCount))

            // Each trial ends when the listener shows its revision or a later one.
            func heard(_ trial: (id: String, revision: Int, time: Date), in events: [ListenEvent]) -> Date? {
                events.first { $0.activityID == trial.id && $0.event != "gone" && $0.revision >= trial.revision }?.time
            }
            let lastTrial = trials.last?.time ?? Date()
            let resolveBy = max(0, lastTrial.timeIntervalSinceNow) + target * 2 + every + 4
            _ = try? Wait.until("the listener to show every trial's revision", timeout: resolveBy, interval: 0.1) {
                let events = listener.events()
                return trials.allSatisfy { heard($0, in: events) != nil }
            }
            let events = listener.events()
            let unresolved = trials.filter { heard($0, in: events) == nil }
            let latencies = trials.map { trial in
                heard(trial, in: events).map { max(0, $0.timeIntervalSince(trial.time)) } ?? .infinity
            }

            // No activity ever shows an older revision after a newer one.
            var highest: [String: Int] = [:]
            var backwards: [String] = []
            for event in events where event.event != "gone" {
                if let previous = highest[event.activityID], event.revision < previous {
                    backwards.append("\(event.activityID): revision \(event.revision) after \(previous)")
                }
                highest[event.activityID] = max(highest[event.activityID] ?? 0, event.revision)
            }
            let forgotten = events.filter { $0.event == "gone" }.count
            let dropped = try perFrame ? lab.frameDrops(host: 2) : lab.drops(host: 2)
            let what = perFrame ? "frame loss" : "loss"
            let accepted = listener.latestCounts?.accepted ?? 0

            let p50 = Figures.percentile(50, of: latencies)
            let p90 = Figures.percentile(90, of: latencies)
            let p99 = Figures.percentile(99, of: latencies)
            let late = latencies.filter { $0 > target }.count
            Figures.record(
                "\(percent) % \(what), change held by the listener, p99 of \(trials.count)", Figures.seconds(p99),
                target: "≤ \(Figures.seconds(target))")
            print("[figure]   p50 \(Figures.seconds(p50)), p90 \(Figures.seconds(p90)), max \(Figures.seconds(latencies.max() ?? .nan)); "
                + "\(late) of \(trials.count) over \(Figures.seconds(target)); \(what) rule dropped \(dropped) \(perFrame ? "frames" : "datagrams"), "
                + "listener accepted \(accepted); \(forgotten) activities forgotten for silence meanwhile")
            print("[figure]   latencies: " + latencies.map { String(format: "%.2f", $0) }.joined(separator: " "))

            #expect(trials.count == trialCount)
            #expect(dropped > 0, "the loss rule dropped nothing: was it in place?")
            #expect(unresolved.isEmpty, "never shown: \(unresolved.map { "\($0.id) r\($0.revision)" })")
            #expect(backwards.isEmpty, "older revisions after newer: \(backwards)")
            #expect(p99 <= target,
                "p99 \(Figures.seconds(p99)) over the \(Figures.seconds(target)) target at \(percent) % \(what); \(late) of \(trials.count) late")
        }

        // MARK: - Killed and orderly exits

        @Test("A peer killed with SIGKILL (no WITHDRAW) is gone from the other's list within 3.5 s of when it was last heard")
        func killedPeerIsForgotten() throws {
            let peer = try Binaries.peer()
            let lab = try Lab(hosts: 2)
            defer { lab.down() }
            let listener = try LabFaultTests.listener(lab, host: 2, peer: peer)
            defer { listener.stop() }
            let announcer = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: "e2e-k", every: 0.7)
            defer { announcer.stop() }

            let appeared = try listener.waitForEvent("e2e-k to appear") { $0.peerName == "e2e-k" && $0.event == "appeared" }
            // Kill right after a change was heard: then it was last heard about now, and the
            // whole 3.5 s must pass (the worst case a person sees).
            let mark = listener.mark
            try listener.waitForEvent("e2e-k to change", since: mark) {
                $0.activityID == appeared.activityID && $0.event == "changed"
            }
            let killed = Date()
            announcer.signal(SIGKILL)
            #expect(try announcer.waitForExit() == 128 + SIGKILL)
            let gone = try listener.waitForEvent("e2e-k to be forgotten", since: mark, timeout: 8) {
                $0.activityID == appeared.activityID && $0.event == "gone"
            }
            let elapsed = gone.time.timeIntervalSince(killed)
            Figures.record("SIGKILLed peer gone from the list, after the kill", Figures.seconds(elapsed),
                target: "≤ 3.9 s (3.5 s + tolerance), and not before ~3.5 s")
            #expect(elapsed <= 3.9, "gone \(Figures.seconds(elapsed)) after the kill")
            #expect(elapsed >= 3.3, "gone \(Figures.seconds(elapsed)) after the kill: before 3.5 s of silence")
        }

        @Test("A peer that exits in order (SIGTERM, or --duration) is gone from the other's list within 100 ms")
        func orderlyExitIsSeenAtOnce() throws {
            let peer = try Binaries.peer()
            let lab = try Lab(hosts: 2)
            defer { lab.down() }
            let listener = try LabFaultTests.listener(lab, host: 2, peer: peer)
            defer { listener.stop() }

            var figures: [Double] = []
            for trial in 1...3 {
                let name = "e2e-term-\(trial)"
                let announcer = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: name, count: trial)
                defer { announcer.stop() }
                let appeared = try listener.waitForEvent("\(name) to appear") { $0.peerName == name && $0.event == "appeared" }
                let mark = listener.mark
                let terminated = Date()
                announcer.signal(SIGTERM)
                let gone = try listener.waitForEvent("\(name) to withdraw", since: mark, timeout: 3) {
                    $0.activityID == appeared.activityID && $0.event == "gone"
                }
                try announcer.expectExit(143)
                figures.append(gone.time.timeIntervalSince(terminated))
            }
            Figures.record("SIGTERMed baton peer gone from the list, after the signal (worst of 3)",
                Figures.seconds(figures.max() ?? .nan), target: "≤ 0.100 s")
            print("[figure]   each: " + figures.map(Figures.seconds).joined(separator: ", "))
            for figure in figures { #expect(figure <= 0.1, "gone \(Figures.seconds(figure)) after SIGTERM") }

            // --duration: it withdraws as it ends; "gone" comes within 100 ms of its exit.
            let timed = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: "e2e-timed", count: 9, ["--duration", "1.5"])
            defer { timed.stop() }
            let appeared = try listener.waitForEvent("e2e-timed to appear") { $0.peerName == "e2e-timed" && $0.event == "appeared" }
            let mark = listener.mark
            try timed.expectExit(0, timeout: 10)
            let ended = try #require(timed.endedAt)
            let gone = try listener.waitForEvent("e2e-timed to withdraw", since: mark, timeout: 3) {
                $0.activityID == appeared.activityID && $0.event == "gone"
            }
            let afterExit = gone.time.timeIntervalSince(ended)
            Figures.record("--duration baton peer gone from the list, relative to its exit", Figures.seconds(afterExit),
                target: "≤ 0.100 s")
            #expect(afterExit <= 0.1)
        }

        @Test("baton in a pane, SIGTERM: peers see its activity gone within 100 ms")
        func batonSIGTERMIsSeenAtOnce() throws {
            try Stage.run(hosts: 2) { stage in
                let listener = try LabFaultTests.listener(stage.lab, host: 2, peer: stage.peer, name: "e2e-timed-listener")
                defer { listener.stop() }
                var figures: [Double] = []
                for trial in 1...3 {
                    let name = "e2e-t\(trial)"
                    let a = try stage.baton("t\(trial)", on: 1, ["counter", "--name", name])
                    try a.waitForScreen("\(name)'s counter") { EndToEndTests.screen($0, showsCount: 0) }
                    let appeared = try listener.waitForEvent("\(name) to appear") { $0.peerName == name && $0.event == "appeared" }
                    let mark = listener.mark
                    let terminated = Date()
                    try a.kill(SIGTERM)
                    let gone = try listener.waitForEvent("\(name) to withdraw", since: mark, timeout: 3) {
                        $0.activityID == appeared.activityID && $0.event == "gone"
                    }
                    figures.append(gone.time.timeIntervalSince(terminated))
                    #expect(try a.waitForExit(timeout: 5) == 128 + SIGTERM)
                }
                Figures.record("SIGTERMed baton gone from the list, after the signal (worst of 3)",
                    Figures.seconds(figures.max() ?? .nan), target: "≤ 0.100 s")
                print("[figure]   each: " + figures.map(Figures.seconds).joined(separator: ", "))
                for figure in figures { #expect(figure <= 0.1, "gone \(Figures.seconds(figure)) after SIGTERM") }
            }
        }

        // MARK: - Restart

        @Test("A peer restarted under the same name is a new sender: its new activity shows, its old one is forgotten")
        func restartedPeerIsANewSender() throws {
            let peer = try Binaries.peer()
            let lab = try Lab(hosts: 2)
            defer { lab.down() }
            let listener = try LabFaultTests.listener(lab, host: 2, peer: peer)
            defer { listener.stop() }
            let name = "e2e-restart"

            // 1. It runs, exits in order, and comes back: the old activity is gone at once.
            let first = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: name, count: 1)
            defer { first.stop() }
            let one = try listener.waitForEvent("the first run") { $0.peerName == name && $0.int("count") == 1 }
            var mark = listener.mark
            first.signal(SIGTERM)
            do {
                try listener.waitForEvent("the first run to withdraw", since: mark, timeout: 1) {
                    $0.activityID == one.activityID && $0.event == "gone"
                }
            } catch {
                // Once, under load, no WITHDRAW was heard and the listener counted one datagram:
                // what the announcer said and how it ended are what would tell why.
                let status = (try? first.waitForExit()).map(String.init) ?? "still running"
                Issue.record("no WITHDRAW heard; the first run ended with \(status) and said:\n\(first.transcript())\nthe listener:\n\(listener.transcript())")
                throw error
            }
            try first.expectExit(143)

            let second = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: name, count: 2)
            defer { second.stop() }
            let two = try listener.waitForEvent("the second run", since: mark) { $0.peerName == name && $0.int("count") == 2 }
            #expect(two.event == "appeared")
            #expect(two.sender != one.sender, "the restarted process kept its sender id \(one.sender)")
            #expect(two.activityID != one.activityID)

            // 2. Killed and restarted at once: the new activity shows at once, the old one goes
            // when 3.5 s of silence have passed.
            mark = listener.mark
            let killed = Date()
            second.signal(SIGKILL)
            let third = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: name, count: 3)
            defer { third.stop() }
            let three = try listener.waitForEvent("the third run", since: mark) { $0.peerName == name && $0.int("count") == 3 }
            #expect(three.event == "appeared")
            #expect(![one.sender, two.sender].contains(three.sender), "the third run reused a sender id")
            let newShown = three.time.timeIntervalSince(killed)
            let gone = try listener.waitForEvent("the killed run to be forgotten", since: mark, timeout: 6) {
                $0.activityID == two.activityID && $0.event == "gone"
            }
            let oldForgotten = gone.time.timeIntervalSince(killed)
            Figures.record("restart after SIGKILL: new activity shown, after the kill", Figures.seconds(newShown),
                target: "at once (≤ 1 s)")
            Figures.record("restart after SIGKILL: old activity forgotten, after the kill", Figures.seconds(oldForgotten),
                target: "≤ 3.9 s")
            #expect(newShown <= 1)
            #expect(oldForgotten <= 3.9)
            #expect(!listener.events(since: mark).contains { $0.activityID == three.activityID && $0.event == "gone" },
                "the new activity went away with the old one")

            // Its sequence numbers started again at 1: a new sender, so nothing was a "replay".
            third.stop()
            listener.stop()
            let counts = try #require(listener.latestCounts, "the listener printed no statistics:\n\(listener.transcript())")
            #expect(counts["replay"] == 0, "datagrams of the restarted peer were dropped as replays: \(counts.rejected)")
            #expect(counts.rejectedTotal == 0, "\(counts.rejected)")
        }

        // MARK: - Interfaces

        @Test("Two interfaces: --interface v0 hears the peer, x1 does not; none named says which it used; a missing one is an error")
        func interfaces() throws {
            let peer = try Binaries.peer()
            let baton = try Binaries.baton()
            let lab = try Lab(hosts: 2)
            defer { lab.down() }
            try lab.addInterface(host: 2, "x1", cidr: "10.78.0.2/24")
            let announcer = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: "e2e-if", count: 4)
            defer { announcer.stop() }

            // x1 listens first, so that it is up for the whole time v0 hears the peer.
            let onX1 = try LabFaultTests.listener(lab, host: 2, peer: peer, name: "e2e-x1", ["--interface", "x1"])
            defer { onX1.stop() }
            let onV0 = try LabFaultTests.listener(lab, host: 2, peer: peer, name: "e2e-v0", ["--interface", "v0"])
            defer { onV0.stop() }
            let heard = try onV0.waitForEvent("the peer on v0") { $0.peerName == "e2e-if" }
            #expect(heard.int("count") == 4)
            #expect(heard.fields["source"] as? String == "\(lab.address(host: 1)):\(E2E.port)")
            // Three datagrams on v0 (start-up and two repeats) while x1 listened the whole time.
            try onV0.waitForCounts("three datagrams on v0", timeout: 6) { $0.accepted >= 3 }
            #expect(onX1.poll() == nil, "the x1 listener ended:\n\(onX1.transcript())")
            onX1.stop()
            #expect(onX1.events().isEmpty, "x1 heard: \(onX1.events().map(\.fields))")
            #expect((onX1.latestCounts?.total ?? 0) == 0, "x1 received datagrams: \(String(describing: onX1.latestCounts))")

            // None named: the monitor says which interface it used, and hears the peer.
            let monitor = try LabProcess("monitor", lab: lab, host: 2, [baton, "monitor", "--name", "e2e-monitor"])
            defer { monitor.stop() }
            let first = try monitor.waitForLine("the monitor's first line") { !$0.isError }
            #expect(first.line.text.hasPrefix("# listening on \(E2E.group):\(E2E.port) on v0"), "\(first.line.text)")
            try monitor.waitForLine("the monitor to hear the peer") { $0.text.contains("dev.baton.counter") && $0.text.contains("e2e-if") }

            // A missing interface: an error that names it and the ones there are, exit status 1.
            for command in [peer + ["listen", "--json"], [baton, "monitor"]] {
                let result = try Command.run(
                    lab.command(host: 2, command + ["--interface", "nope0"]), environment: LabFaultTests.commandEnvironment,
                    check: false)
                let said = result.output + result.errorOutput
                #expect(result.status != 0, "\(command[1]) --interface nope0 exited 0: \(said)")
                for name in ["nope0", "v0", "x1"] {
                    #expect(said.contains(name), "\(command[1]) --interface nope0 does not name \(name): \(said)")
                }
            }
        }
    }
}
