import BatonApp

extension Program {
    /// Carries out the live session's commands on continuation streams.
    func performLive(_ command: AppCommand) {
        switch command {
        case .openLive:
            inbox.yield(.liveOpenFailed("live sessions need continuation streams, which this build does not have"))
        default:
            break
        }
    }
}
