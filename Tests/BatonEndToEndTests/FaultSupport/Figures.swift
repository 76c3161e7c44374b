import Foundation
import Testing

extension Tag {
    /// A test that takes more than about 10 seconds (loss trials, the attack run, floods). Their
    /// function names end in `Slow` too, so `swift test --skip 'Slow\('` leaves them out.
    @Tag static var slow: Tag
}

/// The figures the fault and attack tests measure, printed as `[figure] NAME: VALUE (target …)`
/// lines so that a run's output is the record.
enum Figures {
    /// Prints one figure and its target.
    static func record(_ name: String, _ value: String, target: String) {
        print("[figure] \(name): \(value) (target \(target))")
    }

    /// Seconds as `1.234 s`.
    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }

    /// The nearest-rank percentile `p` (0–100) of `values` (p99 of 50 values is the largest).
    static func percentile(_ p: Double, of values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
