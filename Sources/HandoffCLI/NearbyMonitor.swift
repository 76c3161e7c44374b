import FoundationEssentials
import Handoff
import PropertyList
import HandoffWire

/// Turns an activity center's directory into lines: what appears, changes and goes (with the
/// size of records fetched over the state stream), and the receive counters — as text for
/// people or JSON lines for scripts. Peer text reaches a text line through `PeerText.visible`
/// (a name that looks like another sender's gets the start of its sender ID, see
/// `PeerText.nameLabels`), and a JSON line through `jsonText`, which escapes it.
@MainActor
public final class NearbyMonitor {
    public enum Format: Sendable { case text, json }

    private let center: ActivityCenter
    private let format: Format
    private let write: (String) -> Void
    private var known: [String: NearbyActivity] = [:]
    private var lastStatistics = ReceiveStatistics()
    /// Addresses already said to send under another key.
    private var otherKeySources: [String] = []
    private var tasks: [Task<Void, Never>] = []

    public init(center: ActivityCenter, format: Format, write: @escaping (String) -> Void) {
        self.center = center
        self.format = format
        self.write = write
    }

    /// Starts printing; counters are printed when they changed, at most once per `statisticsInterval`.
    public func start(statisticsInterval: Duration = .seconds(1)) {
        let events = center.events()
        // A path that does not work is said at once; later changes as they happen.
        let status = center.transport.status
        if !status.problems.isEmpty { write(Self.networkLine(status, format: format, at: Date())) }
        tasks.append(Task { [weak self] in
            for await event in events {
                guard let self else { return }
                switch event {
                case .nearbyChanged: self.refresh()
                case .transportChanged(let status): self.write(Self.networkLine(status, format: self.format, at: Date()))
                case .otherKeyHeard(let sources): self.otherKeyHeard(sources)
                case .oldProtocolHeard(let sources): self.write(KeyAdvice.oldProtocolLine(sources, format: self.format, at: Date()))
                default: break
                }
            }
        })
        tasks.append(Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: statisticsInterval)
                self?.printStatisticsIfChanged()
            }
        })
    }

    public func stop() {
        for task in tasks { task.cancel() }
        printStatisticsIfChanged()
    }

    /// Compares the directory with what was printed, and prints the differences. Names are
    /// told apart among what is nearby now and what just left: a newcomer whose name looks like
    /// another sender's is printed with the start of its sender ID, and so is the other one
    /// from its next line on.
    public func refresh() {
        let now = center.nearby
        let current = Dictionary(now.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let gone = known.values.filter { current[$0.id] == nil }.sorted { $0.id < $1.id }
        let shown = now + gone
        let names = PeerText.nameLabels(shown.map { ($0.record.peer.name, $0.senderID) })
        let labels = Dictionary(zip(shown.map(\.id), names), uniquingKeysWith: { a, _ in a })
        for entry in now.reversed() {
            if let old = known[entry.id] {
                if old.record != entry.record { emit("changed", entry, label: labels[entry.id]) }
            } else {
                emit("appeared", entry, label: labels[entry.id])
            }
        }
        for old in gone { emit("gone", old, label: labels[old.id]) }
        known = current
    }

    /// Says that datagrams under another key came from `sources`: what to do the first time,
    /// then only the addresses not said before (the center tells each address once, and only a
    /// few in all), with the counters, which now show the `authenticationFailed` ones.
    public func otherKeyHeard(_ sources: [String]) {
        let new = sources.filter { !otherKeySources.contains($0) }
        guard !new.isEmpty else { return }
        let first = otherKeySources.isEmpty
        otherKeySources += new
        write(KeyAdvice.monitorLine(new: new, all: otherKeySources, first: first, format: format, at: Date()))
        printStatisticsIfChanged()
    }

    public func printStatisticsIfChanged() {
        let stats = center.statistics
        guard stats != lastStatistics else { return }
        lastStatistics = stats
        write(Self.statisticsLine(stats, format: format, at: Date()))
    }

    /// The receive counters: `# accepted=… own=… duplicate=… rejected=… (reason=count …)` with
    /// the reasons that counted any; in JSON an object with `"event": "statistics"` and every
    /// reason a receiver can count.
    public nonisolated static func statisticsLine(_ stats: ReceiveStatistics, format: Format, at time: Date) -> String {
        switch format {
        case .text:
            let reasons = RejectionReason.allCases.filter { stats[$0] > 0 }.map { "\($0.rawValue)=\(stats[$0])" }
            return "# accepted=\(stats.accepted) own=\(stats.own) duplicate=\(stats.duplicate) rejected=\(stats.totalRejected)"
                + (reasons.isEmpty ? "" : " (" + reasons.joined(separator: " ") + ")")
        case .json:
            var rejected: [String: PropertyListValue] = [:]
            // `wrongSource` is version 2's (docs/PROTOCOL.md, section 14, item 34): nothing counts it.
            for reason in RejectionReason.allCases where reason != .wrongSource { rejected[reason.rawValue] = .integer(stats[reason]) }
            let line: PropertyListValue = .dictionary([
                "event": "statistics", "time": .date(time), "accepted": .integer(stats.accepted),
                "own": .integer(stats.own), "duplicate": .integer(stats.duplicate),
                "rejectedTotal": .integer(stats.totalRejected), "rejected": .dictionary(rejected),
            ])
            return line.jsonText
        }
    }

    /// The line for the transport's paths: `# network: multicast unavailable (…): unicast only`
    /// when one does not work, else `# network: multicast …; unicast …`; in JSON an object with
    /// `"event": "network"` and one entry per path (`kind`, `state`, `detail`, and `reason` when down).
    public nonisolated static func networkLine(_ status: TransportStatus, format: Format, at time: Date) -> String {
        switch format {
        case .text:
            return "# network: " + (status.warning.map { "\($0) (\(status))" } ?? status.description)
        case .json:
            let paths: [PropertyListValue] = status.paths.map { path in
                var entry: [String: PropertyListValue] = [
                    "kind": .string(path.kind.rawValue), "detail": .string(path.detail),
                ]
                switch path.state {
                case .up: entry["state"] = "up"
                case .connecting: entry["state"] = "connecting"
                case .down(let reason):
                    entry["state"] = "down"
                    entry["reason"] = .string(reason)
                }
                return .dictionary(entry)
            }
            let line: PropertyListValue = .dictionary([
                "event": "network", "time": .date(time), "paths": .array(paths),
                "warning": status.warning.map { .string($0) } ?? .string(""),
            ])
            return line.jsonText
        }
    }

    private func emit(_ what: String, _ entry: NearbyActivity, label: String?) {
        write(Self.line(
            what, record: entry.record, sender: entry.senderID, source: entry.source, stateSize: entry.stateSize,
            format: format, at: Date(), peerLabel: label))
    }

    /// The line for an activity that `what` ("appeared", "changed" or "gone") at `time`.
    /// A record too large for a datagram shows its size: "(12 MB)" after the revision in
    /// text, `"size": <bytes>` in JSON; its userInfo is then the OFFER's summary. The text
    /// shows the peer as `peerLabel` (from `PeerText.nameLabels`), or its name made visible;
    /// JSON always holds the name as sent, escaped.
    public nonisolated static func line(
        _ what: String, record r: ActivityRecord, sender: SenderID, source: String?, stateSize: Int?,
        format: Format, at time: Date, peerLabel: String? = nil
    ) -> String {
        switch format {
        case .text:
            let mark = what == "appeared" ? "+" : what == "changed" ? "~" : "-"
            let title = r.title.map { " \"\(PeerText.visible($0))\"" } ?? ""
            let size = stateSize.map { " (\(HandoffError.size($0)))" } ?? ""
            let info = what == "gone" ? "" : " " + PeerText.visible(PropertyListValue.dictionary(r.userInfo).jsonText)
            let peer = peerLabel ?? PeerText.visible(r.peer.name)
            return "\(Self.clock(time)) \(mark) \(PeerText.visible(r.activityType))\(title) from \(peer) rev \(r.revision)\(size)\(info)"
        case .json:
            var fields: [String: PropertyListValue] = [
                "event": .string(what), "time": .date(time), "activityID": .string(r.activityID),
                "type": .string(r.activityType), "revision": .integer(r.revision), "savedAt": .date(r.savedAt),
                "peer": .dictionary([
                    "name": .string(r.peer.name), "host": .string(r.peer.host), "app": .string(r.peer.app),
                    "appVersion": .string(r.peer.appVersion),
                ]),
                "sender": .string(sender.description),
            ]
            if what != "gone" { fields["userInfo"] = .dictionary(r.userInfo) }
            if let title = r.title { fields["title"] = .string(title) }
            if let source { fields["source"] = .string(source) }
            if let stateSize { fields["size"] = .integer(stateSize) }
            return PropertyListValue.dictionary(fields).jsonText
        }
    }

    /// "10:04:05.123" (UTC).
    nonisolated static func clock(_ time: Date) -> String {
        time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true).time(includingFractionalSeconds: true))
    }
}
