import TerminalUI

extension BatonApp {
    /// The counter's keys: `+`/`=`/Up up, `-`/Down down, `r` reset, `n` nearby, `q` quit.
    static func handleCounterKey(_ key: Key, _ state: inout CounterState, _ model: inout AppModel) -> [AppCommand] {
        switch key {
        case .character("+"), .character("="), .up:
            state.count = state.count.addingSaturated(1)
        case .character("-"), .character("_"), .down:
            state.count = state.count.addingSaturated(-1)
        case .character("r"), .character("R"):
            state.count = 0
        case .character("n"), .character("N"):
            openNearby(&model)
        case .character("q"), .character("Q"):
            return quit(&model)
        default:
            break
        }
        return []
    }
}
