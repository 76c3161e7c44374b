import Handoff

/// What goes wrong on the way to one receiver, drawn from a seeded generator so a test repeats.
public struct FaultPlan: Sendable {
    /// Chance that a datagram is lost.
    public var dropRate: Double
    /// Chance that a datagram arrives twice.
    public var duplicateRate: Double
    /// Chance that a datagram is held back and arrives after later ones (while fewer than
    /// `reorderDepth` are held back already).
    public var reorderRate: Double
    /// How many later datagrams may overtake one held back: each waits for 1…`reorderDepth` of
    /// them, drawn from the seed, and at most `reorderDepth` wait at once. 1 (the default)
    /// holds one datagram back at a time and lets the next one overtake it.
    public var reorderDepth: Int
    public var seed: UInt64

    public init(
        dropRate: Double = 0, duplicateRate: Double = 0, reorderRate: Double = 0, reorderDepth: Int = 1,
        seed: UInt64 = 1
    ) {
        self.dropRate = dropRate
        self.duplicateRate = duplicateRate
        self.reorderRate = reorderRate
        self.reorderDepth = max(1, reorderDepth)
        self.seed = seed
    }

    /// Every datagram arrives once, in order.
    public static let none = FaultPlan()

    /// Only reordering: a share `rate` of datagrams each overtaken by up to `depth` later ones.
    /// Nothing is lost or doubled, so every datagram sent before the last `depth` arrives.
    public static func reordering(rate: Double, depth: Int, seed: UInt64) -> FaultPlan {
        FaultPlan(reorderRate: rate, reorderDepth: depth, seed: seed)
    }
}
