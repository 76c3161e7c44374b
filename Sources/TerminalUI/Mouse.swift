/// A mouse report: what the button or the wheel did, and where, in columns and rows from 0.
public struct Mouse: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        /// The first button went down.
        case press
        /// The wheel turned away from the person (the text should go down the screen).
        case wheelUp
        /// The wheel turned towards the person.
        case wheelDown
    }

    public var action: Action
    public var x: Int
    public var y: Int

    public init(_ action: Action, x: Int, y: Int) {
        self.action = action
        self.x = x
        self.y = y
    }
}
