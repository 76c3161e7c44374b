import Synchronization

/// Places along one long line, so that finding a character or a display column walks from a
/// place near it rather than from the line's start: the place of every `spacing`-th character
/// as far as walks have gone, the place last found (a key's queries are all near the cursor),
/// and the line's end once a walk reached it.
///
/// An edit inside the line keeps what lies before it (`forget(from:)`): characters before an
/// edit segment as before, and their columns do not change.
struct LineIndex: Sendable {
    /// `places[k]` is the place of character `k × spacing`.
    private(set) var places: [LinePlace] = [.start]
    private(set) var recent: LinePlace = .start
    private(set) var end: LinePlace?
    let spacing: Int

    init(spacing: Int) {
        self.spacing = max(1, spacing)
    }

    /// The place of character `target` (the line's end when there are fewer) and the character
    /// there, nil at the end.
    mutating func place(ofCharacter target: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (LinePlace, Character?) {
        if let end, target >= end.character { return (end, nil) }
        var from = places[min(target / spacing, places.count - 1)]
        if recent.character <= target, recent.character > from.character { from = recent }
        var found: Character?
        let place = walk(bytes, from: from) { place, character, _ in
            guard place.character == target else { return true }
            found = character
            return false
        }
        recent = place
        return (place, found)
    }

    /// The place of the first character whose right edge is past display column `goal` (the
    /// line's end when none is).
    mutating func place(atColumn goal: Int, in bytes: UnsafeBufferPointer<UInt8>) -> LinePlace {
        if let end, end.column <= goal { return end }
        // The last checkpoint at or before the goal: every character before it ends there or before.
        var low = 0
        var high = places.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if places[middle].column <= goal { low = middle } else { high = middle }
        }
        var from = places[low]
        if recent.column <= goal, recent.character > from.character { from = recent }
        let place = walk(bytes, from: from) { _, _, next in next <= goal }
        recent = place
        return place
    }

    /// The end of the line.
    mutating func end(in bytes: UnsafeBufferPointer<UInt8>) -> LinePlace {
        if let end { return end }
        let from = recent.character > places[places.count - 1].character ? recent : places[places.count - 1]
        return walk(bytes, from: from) { _, _, _ in true }
    }

    /// Notes a place found some other way.
    mutating func learn(_ place: LinePlace) {
        recent = place
    }

    /// The line was edited from UTF-8 offset `utf8` on: places there and after are unknown.
    mutating func forget(from utf8: Int) {
        end = nil
        if places[places.count - 1].utf8 >= utf8 {
            var kept = places.count
            while kept > 1, places[kept - 1].utf8 >= utf8 { kept -= 1 }
            places.removeSubrange(kept...)
        }
        if recent.utf8 >= utf8 { recent = places[places.count - 1] }
    }

    /// `LineWalk.walk`, keeping the checkpoints it passes and the end when it gets there.
    private mutating func walk(
        _ bytes: UnsafeBufferPointer<UInt8>, from place: LinePlace, _ body: (LinePlace, Character, Int) -> Bool
    ) -> LinePlace {
        var places = self.places
        self.places = []
        defer { self.places = places }
        var reachedEnd = true
        let stop = LineWalk.walk(bytes, from: place) { place, character, next in
            if place.character == places.count * spacing { places.append(place) }
            guard body(place, character, next) else {
                reachedEnd = false
                return false
            }
            return true
        }
        if reachedEnd {
            if stop.character == places.count * spacing { places.append(stop) }
            end = stop
        }
        return stop
    }
}

/// The `LineIndex`es of a text's long lines, by line, the most recently used last; a few are
/// kept. Copies of a `TextRope` share one until either changes the text (`TextRope` copies it
/// first unless it holds the only reference), and queries from any thread add what they find.
final class LineIndexes: Sendable {
    struct Entry: Sendable {
        var line: Int
        var index: LineIndex
    }

    static let capacity = 16
    private let entries: Mutex<[Entry]>
    let spacing: Int

    init(spacing: Int, entries: [Entry] = []) {
        self.spacing = spacing
        self.entries = Mutex(entries)
    }

    /// Runs `body` on line `line`'s index, made empty when there was none.
    func withIndex<Result: Sendable>(line: Int, _ body: (inout LineIndex) -> Result) -> Result {
        entries.withLock { (entries: inout [Entry]) -> Result in
            let at = Self.moveToBack(line: line, in: &entries, spacing: spacing)
            return body(&entries[at].index)
        }
    }

    /// Puts line `line`'s entry last (made when there was none) and returns where it is.
    private static func moveToBack(line: Int, in entries: inout [Entry], spacing: Int) -> Int {
        if let found = entries.lastIndex(where: { $0.line == line }) {
            if found != entries.count - 1 {
                let entry = entries.remove(at: found)
                entries.append(entry)
            }
        } else {
            if entries.count >= capacity { entries.removeFirst() }
            entries.append(Entry(line: line, index: LineIndex(spacing: spacing)))
        }
        return entries.count - 1
    }

    /// A copy of these indexes, for a text about to change.
    func copy() -> LineIndexes {
        LineIndexes(spacing: spacing, entries: entries.withLock { $0 })
    }

    /// Lines `first...last` were replaced by `count` lines: their indexes go, and those of the
    /// lines after them move with them.
    func replaceLines(_ first: Int, _ last: Int, with count: Int) {
        entries.withLock { entries in
            entries.removeAll { $0.line >= first && $0.line <= last }
            for index in entries.indices where entries[index].line > last {
                entries[index].line += count - (last - first + 1)
            }
        }
    }
}
