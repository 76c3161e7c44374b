import Handoff
import TerminalUI
import HandoffWire

/// How the fetch of a large activity reads — a bar, "1.2 MB of 16 MB", "35 MB/s",
/// "from alice@laptop" — for the progress overlay and for the progress line
/// `baton --continue-activity` draws on stderr before the UI opens.
public enum TransferText {
    /// The bar's filled and empty cells.
    static let filled: Character = "█"
    static let empty: Character = "░"

    /// A bar of `width` cells, filled in proportion to `fraction` (0…1), rounded down so a
    /// full bar means everything arrived.
    public static func bar(_ fraction: Double, width: Int) -> String {
        guard width > 0 else { return "" }
        let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let cells = min(width, Int(clamped * Double(width)))
        return String(repeating: filled, count: cells) + String(repeating: empty, count: width - cells)
    }

    /// "42%", rounded down: 100% only when everything arrived.
    public static func percent(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
        return "\(Int(clamped * 100))%"
    }

    /// "1.2 MB of 16 MB".
    public static func amounts(received: Int, total: Int) -> String {
        "\(HandoffError.size(received)) of \(HandoffError.size(total))"
    }

    /// "35 MB/s"; nil when nothing can be said yet.
    public static func rate(_ bytesPerSecond: Double) -> String? {
        guard bytesPerSecond.isFinite, bytesPerSecond >= 1 else { return nil }
        return HandoffError.size(Int(bytesPerSecond)) + "/s"
    }

    /// "from alice@laptop", the name made visible (`PeerText.visible`) and kept to `maximum` columns.
    public static func source(_ peerName: String, maximum: Int = 32) -> String {
        "from " + PeerText.visible(peerName).truncated(toColumns: maximum)
    }

    /// "resumed 2×" after dropped connections; nil when none was dropped.
    public static func resumes(_ count: Int) -> String? {
        count > 0 ? "resumed \(count)×" : nil
    }

    /// What a continue says before its first byte: "Connecting… · 0 bytes of 2.2 MB", or
    /// "Connecting…" when the size is not known.
    public static func connecting(total: Int?) -> String {
        total.map { "Connecting… · " + amounts(received: 0, total: $0) } ?? "Connecting…"
    }

    /// The line before the first byte, at most `width` columns:
    /// "Connecting… · 0 bytes of 2.2 MB · from alice@laptop · Esc cancels". When it does not
    /// fit, the hint goes first, then the source; what is left is cut with "…".
    public static func connectingLine(total: Int?, peerName: String, hint: String? = nil, width: Int) -> String {
        guard width > 0 else { return "" }
        var parts = [connecting(total: total), source(peerName)] + (hint.map { [$0] } ?? [])
        while parts.count > 1, parts.joined(separator: " · ").columns > width { parts.removeLast() }
        return parts.joined(separator: " · ").truncated(toColumns: width)
    }

    /// "waiting 4 s": no byte came for that long (the link is down, or the fetch is trying
    /// the source again); whole seconds, rounded down.
    public static func waiting(_ quiet: Duration) -> String {
        "waiting \(max(0, Int(quiet.inSeconds))) s"
    }

    /// The progress line, at most `width` columns:
    /// "████████░░░░░░░░  42% · 6.7 MB of 16 MB · 35 MB/s · from alice@laptop", then `hint`
    /// ("Esc cancels") when one is given. With `quiet` (how long no byte has come) the rate,
    /// which would stand still, gives way to "waiting 4 s".
    /// When it does not fit, the bar shrinks (to 8 cells) if that is enough; else the hint goes
    /// first, then the rate, the resumes, the waiting, the source and the amounts; what is left
    /// is cut with "…".
    public static func line(_ progress: TransferProgress, width: Int, hint: String? = nil, quiet: Duration? = nil) -> String {
        guard width > 0 else { return "" }
        var parts: [(keep: Int, text: String)] = [(5, amounts(received: progress.received, total: progress.total))]
        if let quiet {
            parts.append((3, waiting(quiet)))
        } else if let rate = rate(progress.bytesPerSecond) {
            parts.append((1, rate))
        }
        if let resumes = resumes(progress.resumes) { parts.append((2, resumes)) }
        parts.append((4, source(progress.peerName)))
        if let hint { parts.append((0, hint)) }
        let percent = percent(progress.fraction)
        func render(bar barWidth: Int) -> String {
            let head = bar(progress.fraction, width: barWidth) + " " + String(repeating: " ", count: 4 - percent.count) + percent
            return ([head] + parts.map(\.text)).joined(separator: " · ")
        }
        var barWidth = 20
        while render(bar: barWidth).columns > width {
            if barWidth > 8 && (parts.isEmpty || render(bar: 8).columns <= width) {
                barWidth -= 1
            } else if let lowest = parts.indices.min(by: { parts[$0].keep < parts[$1].keep }) {
                parts.remove(at: lowest)
            } else {
                return render(bar: barWidth).truncated(toColumns: width)
            }
        }
        return render(bar: barWidth)
    }

    /// The one line left after a fetch when no line could be redrawn (stderr is not a terminal):
    /// "Fetched 16 MB from alice@laptop in 2.3 s".
    public static func summary(_ progress: TransferProgress) -> String {
        let what = progress.received >= progress.total
            ? "Fetched \(HandoffError.size(progress.total))"
            : "Fetched \(amounts(received: progress.received, total: progress.total))"
        return "\(what) \(source(progress.peerName)) in \(seconds(progress.elapsed))"
    }

    /// "2.3 s", "12 s".
    static func seconds(_ duration: Duration) -> String {
        let value = duration.inSeconds
        if value >= 10 { return "\(Int(value.rounded())) s" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

extension Duration {
    /// The duration in seconds.
    var inSeconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
