import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import Handoff
import HandoffCLI
import PropertyList
import HandoffWire

/// `baton peer`: a headless peer for scripts, tests and benchmarks: announce, listen, continue.
struct PeerCommand: AsyncParsableCommand {
    /// The app name the headless peer gives in what it sends (`PeerInfo.app`): "baton-peer", not
    /// "baton", so that peers and logs tell it from the app.
    static let app = "baton-peer"

    static let configuration = CommandConfiguration(
        commandName: "peer",
        abstract: "A headless peer for scripts: announce an activity, listen to what peers offer, or continue one.",
        discussion: """
            It speaks the same protocol as the app, with the same key, devices and network options \
            (--name, --peer, --relay and the rest), and draws nothing: each command prints lines for a \
            script to read, and ends when its time is up, when it has what it asked for, or on Ctrl-C \
            or SIGTERM (withdrawing what it announced first).

              baton peer announce --user-info '{"count": 5}'   a counter at 5, until Ctrl-C
              baton peer announce --tick count --every 0.5     a counter going up by itself
              baton peer announce --text-file notes.txt        an editing session of it
              baton peer listen --json                         what peers offer, JSON lines
              baton peer continue --type counter --wait 2      the newest counter, as JSON
              baton peer continue --type editing --save-text copy.txt --no-user-info

            Exit status: 0 done; 1 a failure, said on standard error (nothing to continue, a network or \
            file problem); 64 a usage error; 130 after Ctrl-C and 143 after SIGTERM.
            """,
        subcommands: [Announce.self, Listen.self, Continue.self])
}

extension PeerCommand {
    /// Runs `body` with a peer session, and shuts the session down (sending WITHDRAW) on return,
    /// SIGINT or SIGTERM.
    @MainActor
    static func withPeerSession(
        _ options: NetworkOptions, registry: ActivityTypeRegistry? = nil,
        configure: (inout ActivityCenter.Configuration) -> Void = { _ in },
        _ body: @MainActor (PeerSession) async throws -> Void
    ) async throws {
        let session = try await PeerSession(
            options: options, app: app, appVersion: Baton.version, registry: registry, configure: configure)
        let signals = [SIGINT, SIGTERM].map { signo -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .main)
            source.setEventHandler {
                Task { @MainActor in
                    await session.shutdown()
                    Glibc.exit(signo == SIGINT ? 130 : 143)
                }
            }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try await body(session)
        } catch {
            await session.shutdown()
            throw error
        }
        await session.shutdown()
    }

    /// Waits for `seconds`, or for ever when nil.
    static func stay(_ seconds: Double?) async {
        if let seconds {
            try? await Task.sleep(for: .seconds(seconds))
        } else {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
    }

    /// Writes a line to standard output at once (no buffering, so pipes see it promptly).
    static func printLine(_ line: String) {
        Console.output(line + "\n")
    }
}

extension PeerCommand {
    struct Announce: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an activity current and keep announcing it until the time is up or a signal comes.")

        @OptionGroup var network: NetworkOptions

        @Option(help: """
            Activity type, reverse-DNS. A type the registry does not declare is declared for this run. \
            Default: dev.baton.counter, or dev.baton.editing with --text-file.
            """)
        var type: String?

        @Option(help: "Title peers show.")
        var title: String?

        @Option(name: .customLong("user-info"), help: "userInfo as a JSON object, e.g. '{\"count\": 5}'.")
        var userInfo: String = "{}"

        @Option(name: .customLong("text-file"), help: ArgumentHelp("""
            Publish an editing session of this UTF-8 file, as `baton edit FILE` would: userInfo `text` is \
            its contents byte for byte, `fileName` its base name, the cursor at the start (keys in --user-info win); \
            the title "Editing NAME" unless --title says otherwise.
            """, valueName: "path"))
        var textFile: String?

        @Option(help: "Add 1 to this integer userInfo key every --every seconds (a changing activity).")
        var tick: String?

        @Option(help: "Seconds between ticks.")
        var every: Double = 1

        @Option(help: "Seconds to run, then WITHDRAW and exit (default: until a signal).")
        var duration: Double?

        @MainActor
        func run() async throws {
            let type = type ?? (textFile == nil ? "dev.baton.counter" : "dev.baton.editing")
            guard ActivityTypeRegistry.isValidActivityType(type) else {
                throw CommandFailure(HandoffError.invalidActivityType(type).description)
            }
            let info: PropertyListValue
            do {
                info = try PropertyListValue(json: Data(userInfo.utf8))
            } catch {
                throw CommandFailure("--user-info is not a JSON object of plist values: \(error)")
            }
            guard case .dictionary(var dict) = info else { throw CommandFailure("--user-info must be a JSON object.") }
            if let textFile {
                dict = try Self.editingUserInfo(textFile, over: dict)
            }
            var registry = try network.loadRegistry()
            if !registry.isDeclared(type) {
                registry = ActivityTypeRegistry(declaredTypes: registry.declaredTypes + [type], schemas: registry.schemas)
            }
            // It shows nothing of what it hears and answers QUERYs at once all the same: the
            // directory's news is taken at most every 250 ms.
            try await withPeerSession(
                network, registry: registry, configure: { $0.newsFrame = .milliseconds(250) }
            ) { session in
                let activity = UserActivity(activityType: type, center: session.center)
                activity.title = title ?? dict["fileName"]?.stringValue.map { "Editing \($0)" }
                activity.userInfo = dict
                let events = session.center.events()
                let printer = Task { @MainActor in
                    for await event in events {
                        switch event {
                        case .published(let record):
                            printLine("published \(record.activityID) revision \(record.revision) \(Self.shortJSON(record.userInfo))")
                        case .saveFailed(_, let error):
                            printLine("refused: \(error)")
                        case .continued(_, let peer):
                            printLine("continued by \(PeerText.visible(peer.name))")
                        case .sendFailed(let reason):
                            printLine("send failed: \(reason)")
                        case .transportChanged(let status):
                            printLine("network: \(status)")
                        case .otherKeyHeard(let sources):
                            printLine("other key: \(KeyAdvice.otherKey(sources, remedy: KeyAdvice.otherKeyRemedy(keySource: session.keySource)))")
                        case .oldProtocolHeard(let sources):
                            printLine("protocol 2: \(sources.map(PeerText.visible).joined(separator: ", ")) speaks protocol 2: update it")
                        case .membershipChanged(let change):
                            printLine("devices changed\(change.newKey == nil ? "" : ", new group key")")
                        case .nearbyChanged:
                            break
                        }
                    }
                }
                try activity.becomeCurrent()
                printLine("announcing \(type) as \(session.peer.name) on \(session.endpoint)")
                if let tick {
                    let ticker = Task { @MainActor in
                        while !Task.isCancelled {
                            try? await Task.sleep(for: .seconds(every))
                            let value = activity.userInfo[tick]?.intValue ?? 0
                            activity.userInfo[tick] = .integer(value + 1)
                        }
                    }
                    await stay(duration)
                    ticker.cancel()
                } else {
                    await stay(duration)
                }
                printer.cancel()
            }
        }

        /// userInfo for an editing session of the file at `path`: `text` (the file's bytes, which
        /// must be UTF-8), `fileName` (its base name), `cursorLine` and `cursorColumn` 0; entries
        /// already in `given` stay.
        static func editingUserInfo(_ path: String, over given: [String: PropertyListValue]) throws
            -> [String: PropertyListValue]
        {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("--text-file \(path): cannot read it.")
            }
            guard let text = String(validating: data, as: UTF8.self) else {
                throw CommandFailure("--text-file \(path): not UTF-8 text.")
            }
            var info: [String: PropertyListValue] = [
                "text": .string(text), "cursorLine": .integer(0), "cursorColumn": .integer(0),
                "fileName": .string(PlainText.lastComponent(of: path)),
            ]
            info.merge(given) { _, new in new }
            return info
        }

        /// userInfo as JSON, each string over 200 bytes shown as `"<N bytes>"`: one line per
        /// revision stays readable when the text is large.
        /// (The long strings are replaced before any JSON is made: writing 16 MB of text as JSON
        /// on the main actor would hold up the answers to QUERY for most of a second.)
        static func shortJSON(_ userInfo: [String: PropertyListValue]) -> String {
            let short = userInfo.mapValues { value -> PropertyListValue in
                if case .string(let text) = value, text.utf8.count > 200 { return .string("<\(text.utf8.count) bytes>") }
                return value
            }
            return PropertyListValue.dictionary(short).jsonText
        }
    }

    struct Listen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every activity peers offer as it appears, changes and goes, and the receive counters.")

        @OptionGroup var network: NetworkOptions

        @Flag(help: "One JSON object per line.")
        var json = false

        @Option(help: "Seconds to listen (default: until a signal).")
        var duration: Double?

        @MainActor
        func run() async throws {
            try await withPeerSession(network) { session in
                if !json { printLine("# listening on \(session.endpoint) as \(session.peer.name)") }
                let monitor = NearbyMonitor(center: session.center, format: json ? .json : .text, write: printLine)
                monitor.start()
                await stay(duration)
                monitor.stop()
            }
        }
    }
}
