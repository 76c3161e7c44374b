import FoundationEssentials
import Handoff
import TerminalUI

/// Draws the nearby list over the session: a box with one row per activity (title on the
/// left; peer and age on the right), the selected one highlighted; or, when nothing is
/// nearby, how to get something there.
enum NearbyPanel {
    /// The widest the box gets.
    static let maximumWidth = 64
    /// What the box says when the list is empty.
    /// A machine is heard only when it is paired with this one (or introduced): the same key is not enough.
    static let emptyText = "Nothing nearby yet. Start baton in another terminal here, or on a machine paired with this one, and its activity shows up here."

    static func draw(
        _ items: [NearbyItem], selectedID: String?, now: Date, layout: ScreenLayout, into frame: inout ScreenBuffer
    ) {
        let areaHeight = layout.mainBottom
        let areaWidth = layout.size.width
        guard areaHeight > 0, areaWidth > 0 else { return }
        let bordered = areaHeight >= 3 && areaWidth >= 8
        let boxWidth = bordered ? min(areaWidth, maximumWidth) : areaWidth
        let innerWidth = bordered ? boxWidth - 2 : boxWidth
        let maxInnerHeight = bordered ? areaHeight - 2 : areaHeight
        let emptyLines = items.isEmpty ? emptyText.wrapped(toColumns: max(1, innerWidth - 2)) : []
        let wanted = items.isEmpty ? emptyLines.count : items.count
        let innerHeight = min(max(wanted, 1), maxInnerHeight)
        let boxHeight = innerHeight + (bordered ? 2 : 0)
        let left = (areaWidth - boxWidth) / 2
        let top = (areaHeight - boxHeight) / 2
        frame.fill(" ", x: left, y: top, width: boxWidth, height: boxHeight)
        let innerLeft = left + (bordered ? 1 : 0)
        let innerTop = top + (bordered ? 1 : 0)
        if bordered {
            frame.drawBox(
                title: items.isEmpty ? "─ Nearby " : "─ Nearby (\(items.count)) ", x: left, y: top, width: boxWidth,
                height: boxHeight)
        }
        if items.isEmpty {
            for (offset, line) in emptyLines.prefix(innerHeight).enumerated() {
                frame.put(line, x: innerLeft + 1, y: innerTop + offset, maxWidth: innerWidth - 1)
            }
            return
        }
        let selected = BatonApp.selectedIndex(selectedID, in: items)
        let first = max(0, selected - innerHeight + 1)
        for row in 0..<innerHeight {
            let index = first + row
            guard index < items.count else { break }
            drawItem(items[index], selected: index == selected, now: now,
                     x: innerLeft, y: innerTop + row, width: innerWidth, into: &frame)
        }
    }

    /// One activity: "▸ Counter: 5 ……… bob@desk · 3s ago ", reversed when selected; a large
    /// one also says how much continuing it will fetch: "▸ Editing big.log … 12 MB · bob@desk · 3s ago ".
    static func drawItem(
        _ item: NearbyItem, selected: Bool, now: Date, x: Int, y: Int, width: Int, into frame: inout ScreenBuffer
    ) {
        let style = Style(reverse: selected)
        frame.fill(" ", style: style, x: x, y: y, width: width, height: 1)
        let title = (selected ? "▸ " : "  ") + item.title
        var right = "\(item.peerName.truncated(toColumns: 24)) · \(item.age(at: now)) "
        if let size = item.stateSize { right = HandoffError.size(size) + " · " + right }
        let titleRoom = width - right.columns - 1
        if titleRoom >= min(title.columns, 12) {
            frame.putTruncated(title, x: x, y: y, width: titleRoom, style: style)
            frame.put(right, x: x + width - right.columns, y: y, style: style)
        } else {
            frame.putTruncated(title, x: x, y: y, width: width, style: style)
        }
    }
}
