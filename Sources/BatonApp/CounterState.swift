/// The state of a counter session: just the count.
public struct CounterState: Equatable, Sendable {
    /// The number shown; published as userInfo `count`.
    public var count: Int

    /// A counter showing `count`.
    public init(count: Int = 0) {
        self.count = count
    }
}
