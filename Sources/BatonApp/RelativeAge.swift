/// Short descriptions of elapsed time for the nearby list: "just now", "3s ago", "2m ago".
public enum RelativeAge {
    /// `seconds` ago in the largest whole unit; negative (a peer's clock ahead) and under one second is "just now".
    public static func describe(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 1 else { return "just now" }
        let whole = seconds >= Double(Int.max) ? Int.max : Int(seconds)
        switch whole {
        case ..<60: return "\(whole)s ago"
        case ..<3600: return "\(whole / 60)m ago"
        case ..<86_400: return "\(whole / 3600)h ago"
        default: return "\(whole / 86_400)d ago"
        }
    }
}
