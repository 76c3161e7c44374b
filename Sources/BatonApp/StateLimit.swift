import Handoff

extension BatonApp {
    /// Why a file cannot be handed off, when its `bytes` are over the state `limit`:
    /// "big.log is 40 MB; Baton hands off files up to 16 MB". Nil when it fits.
    ///
    /// The limit is on the record's encoding, a little more than the text; a file just under
    /// it that still does not fit is refused when it is saved, and the save says so.
    public static func fileTooLargeToHandOff(name: String, bytes: Int, limit: Int) -> String? {
        guard bytes > limit else { return nil }
        return "\(name) is \(HandoffError.size(bytes)); Baton hands off files up to \(HandoffError.size(limit))"
    }
}
