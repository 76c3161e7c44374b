import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import PropertyList
@testable import HandoffWire
@testable import BatonFiles

/// The fuzz targets' inputs as ordinary tests: every reproducer a fuzzer found is refused
/// with an error (never a crash), and every seed in `Fuzz/corpus` still is what it claims.
///
/// Reproducers live in `Vectors/fuzz-regressions/datagram/` (in the datagram target's input
/// format: a mode byte first, see `Fuzz/DatagramFuzzer.swift`) and
/// `Vectors/fuzz-regressions/registry/` (registry files as they are). Files are found
/// relative to this source file, so a new reproducer needs no change here.
@Suite("Fuzz regressions and seeds")
struct FuzzRegressionTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let regressions = here.appendingPathComponent("Vectors/fuzz-regressions")
    static let plistVectors = here.deletingLastPathComponent().appendingPathComponent("PropertyListTests/Vectors/plist")
    static let corpus = here.appendingPathComponent("../../Fuzz/corpus").standardizedFileURL

    /// The regular files in `folder`, sorted, without READMEs and dot files; none when it is missing.
    static func files(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted()
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }
            .map { folder.appendingPathComponent($0) }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }

    static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

    // MARK: The datagram target's paths

    /// How an input in the datagram target's format ended: accepted, or refused and why.
    enum Outcome: Equatable, CustomStringConvertible {
        case accepted
        case refused(String)

        var isRefused: Bool { if case .refused = self { true } else { false } }
        var description: String {
            switch self {
            case .accepted: "accepted"
            case .refused(let why): "refused (\(why))"
            }
        }
    }

    /// The datagram target's dispatch (without its invariant checks): byte 0 picks the mode.
    @MainActor
    static func datagramOutcome(_ input: [UInt8]) async -> Outcome {
        guard let mode = input.first else { return .refused("empty input") }
        let body = Array(input.dropFirst())
        func kind(_ byte: UInt8) -> DatagramKind {
            DatagramKind(rawValue: byte) ?? DatagramKind.allCases[Int(byte) % DatagramKind.allCases.count]
        }
        func seal(_ kind: DatagramKind, _ plaintext: [UInt8], sender: SenderID = Fixtures.sender) -> [UInt8]? {
            try? Fixtures.codec().seal(
                kind: kind, payload: plaintext, identity: Fixtures.device, senderID: sender, sequence: 1)
        }
        // The shared device is the one listed: another tag is `unknownDevice` (a DEVICES goes on unsigned).
        let tag = DeviceTag(Fixtures.device.publicIdentity.deviceID)
        func decode(_ datagram: [UInt8]) throws(RejectionReason) {
            _ = try Fixtures.codec().decode(datagram, now: Fixtures.sentAt) { $0 == tag ? Fixtures.device.publicIdentity : nil }
        }
        do {
            switch mode % 4 {
            case 0:
                try decode(body)
            case 1:
                guard let first = body.first else { return .refused("no kind byte") }
                guard let datagram = seal(kind(first), Array(body.dropFirst())) else { return .refused("too large to seal") }
                try decode(datagram)
            case 2:
                _ = try BinaryPropertyListReader().read(body)
            default:
                guard body.count >= 2 else { return .refused("no kind or sender byte") }
                let center = ActivityCenter(
                    registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: OfflineTransport(reason: "fuzzing"),
                    configuration: .init(peer: Fixtures.peer, senderID: Fixtures.sender(0x5A)))
                let sender = body[1] == 0xFF
                    ? center.senderID : SenderID(tag: tag, instance: Fixtures.sender.instance.dropLast() + [body[1] & 0x0F])!
                guard let datagram = seal(kind(body[0]), Array(body.dropFirst(2)), sender: sender) else {
                    return .refused("too large to seal")
                }
                center.receive(ReceivedDatagram(bytes: datagram), now: Fixtures.sentAt)
                await center.shutdown()
                guard center.statistics.accepted == 1 else {
                    return .refused("center: \(center.statistics.rejected.keys.map(\.rawValue).sorted().joined(separator: ", "))")
                }
            }
            return .accepted
        } catch let reason as RejectionReason {
            return .refused(reason.rawValue)
        } catch {
            return .refused("\(error)")
        }
    }

    @Test("Every datagram reproducer is refused with an error")
    @MainActor
    func datagramRegressions() async throws {
        let files = Self.files(in: Self.regressions.appendingPathComponent("datagram"))
        #expect(!files.isEmpty, "no reproducers in fuzz-regressions/datagram: the loop would check nothing")
        for file in files {
            let outcome = await Self.datagramOutcome(try Self.bytes(file))
            #expect(outcome.isRefused, "\(file.lastPathComponent) was \(outcome)")
        }
    }

    @Test("Every registry reproducer is refused with an error")
    func registryRegressions() throws {
        let files = Self.files(in: Self.regressions.appendingPathComponent("registry"))
        #expect(!files.isEmpty, "no reproducers in fuzz-regressions/registry: the loop would check nothing")
        for file in files {
            #expect(throws: ActivityTypeRegistry.LoadError.self, "\(file.lastPathComponent)") {
                try ActivityTypeRegistry(data: Data(contentsOf: file), path: file.lastPathComponent)
            }
        }
    }

    // MARK: The plists that broke Foundation

    @Test("The plists that crash Foundation are refused on every path that reads bytes from outside")
    @MainActor
    func foundationCrashers() async throws {
        for name in ["bplist-set-segv", "bplist-reference-cycle"] {
            let plist = try Self.bytes(Self.plistVectors.appendingPathComponent("\(name).bplist"))
            #expect(throws: PropertyListReadError.self, "\(name)") { try BinaryPropertyListReader().read(plist) }
            #expect(await Self.datagramOutcome([1, DatagramKind.announce.rawValue] + plist) == .refused("malformedPayload"), "\(name)")
            #expect(await Self.datagramOutcome([3, DatagramKind.announce.rawValue, 0] + plist) == .refused("center: malformedPayload"), "\(name)")
            #expect(throws: ActivityTypeRegistry.LoadError.self, "\(name)") {
                try ActivityTypeRegistry(data: Data(plist), path: name)
            }
        }
        // The valid record they were mutated from is a plist, but neither a payload nor a registry.
        let seed = try Self.bytes(Self.plistVectors.appendingPathComponent("seed-valid.bplist"))
        #expect(throws: Never.self) { try BinaryPropertyListReader().read(seed) }
        #expect(throws: ActivityTypeRegistry.LoadError.missingTypes(path: "seed-valid")) {
            try ActivityTypeRegistry(data: Data(seed), path: "seed-valid")
        }
    }

    // MARK: The seed corpora

    @Test("Every datagram seed is accepted by the path its mode byte names, except the crashers")
    @MainActor
    func datagramSeeds() async throws {
        let seeds = Self.files(in: Self.corpus.appendingPathComponent("datagram"))
        #expect(seeds.count >= 20)
        for seed in seeds {
            let name = seed.lastPathComponent
            let outcome = await Self.datagramOutcome(try Self.bytes(seed))
            if name.contains("bplist-set-segv") || name.contains("bplist-reference-cycle") {
                #expect(outcome.isRefused, "\(name) was \(outcome)")
            } else if name == "sealed-seed-valid.bin" {
                #expect(outcome == .refused("missingKey"), "\(name) was \(outcome)")
            } else {
                #expect(outcome == .accepted, "\(name) was \(outcome)")
            }
        }
    }

    @Test("The registry seeds read as the compiled-in registry; the crashers are refused")
    func registrySeeds() throws {
        let folder = Self.corpus.appendingPathComponent("registry")
        for name in ["Info.plist", "Info-baton-writer.bplist", "Info-foundation-writer.bplist"] {
            let registry = try ActivityTypeRegistry(data: Data(contentsOf: folder.appendingPathComponent(name)), path: name)
            #expect(registry == Fixtures.registry, "\(name)")
        }
        let minimal = try ActivityTypeRegistry(data: Data(contentsOf: folder.appendingPathComponent("minimal.plist")))
        #expect(minimal.declaredTypes == ["dev.baton.counter"])
        for name in ["bplist-set-segv.bplist", "bplist-reference-cycle.bplist", "seed-valid.bplist"] {
            #expect(throws: ActivityTypeRegistry.LoadError.self, "\(name)") {
                try ActivityTypeRegistry(data: Data(contentsOf: folder.appendingPathComponent(name)), path: name)
            }
        }
        // Foundation would read the old OpenStep text format; the registry refuses it before Foundation sees it.
        #expect(throws: ActivityTypeRegistry.LoadError.self) {
            try ActivityTypeRegistry(data: Data(contentsOf: folder.appendingPathComponent("openstep.plist")))
        }
    }
}
