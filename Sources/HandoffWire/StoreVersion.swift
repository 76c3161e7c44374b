import FoundationEssentials

/// The version of a key-value store entry (docs/PROTOCOL.md, section 18): a hybrid logical
/// clock and the sender id of the program that wrote it (its device's tag and its instance),
/// 24 bytes on the wire. Versions compare as those bytes, unsigned: the clock first, then the
/// writer. Two programs of one device are two writers, so no two writes share a version.
public struct StoreVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// 8 bytes of clock and 16 of sender id.
    public static let length = 24
    /// How many counter values one millisecond of the clock holds.
    public static let ticksPerMillisecond: UInt64 = 65_536

    /// Milliseconds since 1970 × 65,536, plus a counter.
    public let clock: UInt64
    /// The writing program's sender id, 16 bytes: its device's tag (8) ‖ its instance (8).
    public let writer: [UInt8]

    /// A version of `clock` by the program whose sender id is `writer`.
    public init(clock: UInt64, writer: SenderID) {
        self.clock = clock
        self.writer = writer.bytes
    }

    /// The tag of the device that wrote it: the first 8 bytes of the writer.
    public var writerTag: DeviceTag { DeviceTag(bytes: writer.prefix(DeviceTag.length))! }

    /// Reads 24 bytes; nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        let array = Array(bytes)
        clock = array[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        writer = Array(array[8..<24])
    }

    /// The 24 bytes on the wire: the clock, big-endian, then the writer.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: clock >> (56 - 8 * $0)) } + writer
    }

    /// The wall-clock moment the clock stands for (to the millisecond).
    public var date: Date { Date(timeIntervalSince1970: Double(clock / Self.ticksPerMillisecond) / 1_000) }

    /// The clock of a write at `now` by a device whose greatest clock made or taken for the
    /// store is `greatest`: max(now in ms × 65,536, greatest + 1).
    public static func nextClock(after greatest: UInt64, now: Date) -> UInt64 {
        let wall = clock(at: now)
        return greatest == .max ? greatest : max(wall, greatest + 1)
    }

    /// The clock value that begins the millisecond of `date` (0 before 1970).
    public static func clock(at date: Date) -> UInt64 {
        let milliseconds = (date.timeIntervalSince1970 * 1_000).rounded(.down)
        guard milliseconds > 0 else { return 0 }
        guard milliseconds < Double(UInt64.max / ticksPerMillisecond) else { return .max }
        return UInt64(milliseconds) * ticksPerMillisecond
    }

    public static func < (a: StoreVersion, b: StoreVersion) -> Bool {
        a.clock != b.clock ? a.clock < b.clock : a.writer.lexicographicallyPrecedes(b.writer)
    }

    /// The clock in hex, a dot, then the writer's first 4 bytes: `0190c3…0000.2614dcb9`.
    public var description: String {
        String(clock, radix: 16) + "." + PlainText.hex(writer.prefix(4))
    }
}
