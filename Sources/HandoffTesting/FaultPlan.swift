import Handoff

/// What goes wrong on the way to one receiver, drawn from a seeded generator so a test repeats.
public struct FaultPlan: Sendable {
    /// Chance that a datagram is lost.
    public var dropRate: Double
    /// Chance that a datagram arrives twice.
    public var duplicateRate: Double
    /// Chance that a datagram is held back and arrives after the next one.
    public var reorderRate: Double
    public var seed: UInt64

    public init(dropRate: Double = 0, duplicateRate: Double = 0, reorderRate: Double = 0, seed: UInt64 = 1) {
        self.dropRate = dropRate
        self.duplicateRate = duplicateRate
        self.reorderRate = reorderRate
        self.seed = seed
    }

    /// Every datagram arrives once, in order.
    public static let none = FaultPlan()
}
