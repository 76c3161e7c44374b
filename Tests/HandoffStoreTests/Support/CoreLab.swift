import Foundation
import Handoff
import HandoffWire
import PropertyList
@testable import HandoffStore

/// The stores of one simulated program, as `StoreContents` values the core reads.
final class ContentsStores: StoreSyncStores {
    var held: [String: StoreContents] = [:]

    var storeNames: [String] { held.keys.sorted() }
    func digests(of store: String) -> StoreDigests? { held[store]?.digests }
    func entries(of store: String, inBuckets buckets: Set<Int>) -> [StoreEntry] {
        held[store]?.entries(inBuckets: buckets) ?? []
    }
}

/// Programs running `StoreSyncCore` over a simulated LAN in virtual time: what one sends reaches
/// the others `latency` later (unless cut off), store states are fetched as fast, and each
/// program's stores are `StoreContents` values. Nothing sleeps: `run(for:)` jumps from one
/// deadline to the next, so minutes of protocol time take milliseconds.
final class CoreLab {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let origin = ManualOrigin.instant

    final class Program {
        let sender: SenderID
        var core: StoreSyncCore
        let stores = ContentsStores()
        /// Every action the core asked for, in order, with when.
        var log: [(at: Duration, action: StoreSyncAction)] = []
        var changes: [String] = []
        /// Actions not carried out yet: one that calls the core back queues behind the rest, as
        /// in the runner.
        var queue: [StoreSyncAction] = []
        var performing = false
        /// Whether it started: only a started program hears the others.
        var isOn = false

        init(sender: SenderID, core: StoreSyncCore) {
            self.sender = sender
            self.core = core
        }

        var sent: [StoreMessage] {
            log.compactMap { if case .send(let message) = $0.action { message } else { nil } }
        }
    }

    private enum Event {
        case deliver(StoreMessage, from: Int, to: Int)
        case fetched(StoreSyncAction.FetchRequest, [StoreEntry]?, to: Int)
    }

    var programs: [Program] = []
    private(set) var now = CoreLab.origin
    var latency: Duration = .milliseconds(2)
    /// Pairs of programs that do not hear each other.
    var cuts: Set<[Int]> = []
    private var events: [(at: ContinuousClock.Instant, order: Int, event: Event)] = []
    private var eventCount = 0
    /// Store states kept to serve, by sender, store and revision.
    private var shelf: [String: [StoreEntry]] = [:]

    var elapsed: Duration { now - Self.origin }
    var date: Date { Self.t0.addingTimeInterval(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) }

    /// Adds a program of device `device` (its instance `instance`) whose jitter is seeded with `seed`.
    @discardableResult
    func add(device: UInt8, instance: UInt8 = 1, seed: UInt64, canShelve: Bool = true, limit: Int = 1_200) -> Program {
        let sender = SenderID(bytes: Array(repeating: device, count: 8) + Array(repeating: instance, count: 8))!
        let configuration = StoreSyncCore.Configuration(maximumDatagramSize: limit, canShelve: canShelve, watchesFiles: false)
        let program = Program(sender: sender, core: StoreSyncCore(configuration: configuration, random: SplitMix64(seed: seed)))
        programs.append(program)
        return program
    }

    func open(_ index: Int, _ store: String) {
        let program = programs[index]
        if program.stores.held[store] == nil { program.stores.held[store] = StoreContents() }
        perform(index, program.core.opened(store, stores: program.stores))
    }

    func start(_ index: Int) {
        let program = programs[index]
        program.isOn = true
        perform(index, program.core.start(now: now, stores: program.stores))
    }

    /// Program `index` writes `values` to `store` now.
    func write(_ index: Int, _ store: String, _ values: [String: PropertyListValue?]) throws {
        let program = programs[index]
        let made = try program.stores.held[store]!.write(
            values, writer: program.sender, now: date, measure: { program.core.measure($0, of: store) })
        perform(index, program.core.wrote(made, of: store, now: now, stores: program.stores))
    }

    /// Hands program `index` a STORE as if `sender` sent it, now.
    func hear(_ index: Int, _ message: StoreMessage, from sender: SenderID, host: String? = "peer.test") {
        let program = programs[index]
        perform(index, program.core.heard(message, from: sender, host: host, now: now, stores: program.stores))
    }

    /// Runs the programs for `duration` of virtual time: every delivery and deadline in order.
    func run(for duration: Duration) {
        let end = now + duration
        while true {
            let deadlines = programs.compactMap(\.core.nextDeadline) + events.map(\.at)
            guard let next = deadlines.min(), next <= end else { break }
            now = max(now, next)
            let due = events.filter { $0.at <= now }.sorted { ($0.at, $0.order) < ($1.at, $1.order) }
            events.removeAll { $0.at <= now }
            for item in due { handle(item.event) }
            for (index, program) in programs.enumerated() where (program.core.nextDeadline.map { $0 <= now } ?? false) {
                perform(index, program.core.tick(now: now, stores: program.stores))
            }
        }
        now = end
    }

    /// Whether every program holding `store` holds the same versions of it.
    func agree(on store: String) -> Bool {
        Set(programs.compactMap { $0.stores.digests(of: store) }).count == 1
    }

    private func schedule(_ event: Event) {
        eventCount += 1
        events.append((now + latency, eventCount, event))
    }

    private func handle(_ event: Event) {
        switch event {
        case .deliver(let message, let from, let to):
            hear(to, message, from: programs[from].sender, host: "program\(from)")
        case .fetched(let request, let entries, let to):
            let program = programs[to]
            perform(to, program.core.fetched(request, entries: entries, now: now, stores: program.stores))
        }
    }

    func perform(_ index: Int, _ actions: [StoreSyncAction]) {
        let program = programs[index]
        program.queue += actions
        guard !program.performing else { return }
        program.performing = true
        while !program.queue.isEmpty { run(index, program.queue.removeFirst()) }
        program.performing = false
    }

    private func run(_ index: Int, _ action: StoreSyncAction) {
        let program = programs[index]
        do {
            program.log.append((elapsed, action))
            switch action {
            case .send(let message):
                broadcast(message, from: index)
            case .sendState(let send):
                shelf["\(index)/\(send.store)/\(send.revision)"] = send.entries
                let state = StoreState(
                    size: StoreState.encode(send.entries).count, digest: Array(repeating: 0, count: 32), port: 1, revision: send.revision)
                broadcast(StoreMessage(store: send.store, digests: send.digests, state: state), from: index)
            case .open(let store):
                open(index, store)
            case .take(let request):
                guard program.stores.held[request.store] != nil else {
                    perform(index, program.core.taken(request, nil, now: now, stores: program.stores))
                    return
                }
                let taken = program.stores.held[request.store]!.take(request.entries, writer: program.sender, policy: .newest, now: date)
                program.changes += taken.changed
                perform(index, program.core.wrote(taken.writes, of: request.store, now: now, stores: program.stores))
                perform(index, program.core.taken(request, taken, now: now, stores: program.stores))
            case .fetch(let request):
                let from = Int(request.host.dropFirst("program".count))!
                schedule(.fetched(request, shelf["\(from)/\(request.store)/\(request.state.revision)"], to: index))
            case .synced, .resume, .checkFiles:
                break
            }
        }
    }

    private func broadcast(_ message: StoreMessage, from index: Int) {
        for other in programs.indices where other != index && programs[other].isOn && !cuts.contains([min(index, other), max(index, other)]) {
            schedule(.deliver(message, from: index, to: other))
        }
    }
}

/// One instant every lab counts from.
enum ManualOrigin {
    static let instant = ContinuousClock.now
}
