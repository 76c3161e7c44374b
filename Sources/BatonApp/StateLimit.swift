import Handoff

extension BatonApp {
    /// Why a file cannot be handed off, when its `bytes` are over the state `limit`:
    /// "big.log is 40 MB; Baton hands off files up to 16 MB". Nil when it fits.
    ///
    /// `limit` is the text limit (16 MiB by default), which the library's state limit always
    /// has room for, even as UTF-16; a text that grows over the state limit later is refused
    /// when it is saved, and the save says so.
    public static func fileTooLargeToHandOff(name: String, bytes: Int, limit: Int) -> String? {
        guard bytes > limit else { return nil }
        return "\(name) is \(HandoffError.size(bytes)); Baton hands off files up to \(HandoffError.size(limit))"
    }
}
