extension Int {
    /// `self` limited to `low...high` (`low` wins when the range is empty).
    func clamped(_ low: Int, _ high: Int) -> Int {
        Swift.max(low, Swift.min(self, high))
    }

    /// `self + other`, saturating at the ends of `Int` instead of trapping.
    func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        if overflow { return other > 0 ? .max : .min }
        return sum
    }
}
