#if canImport(Glibc)
import Glibc
#endif

extension ScreenBuffer {
    /// The cells that differ from `old`, row by row, left to right.
    ///
    /// When the sizes differ every cell is a change. A backend writes each change
    /// and skips continuations, whose wide grapheme is always among the changes too.
    public func diff(from old: ScreenBuffer) -> [CellChange] {
        var changes: [CellChange] = []
        let sameSize = old.width == width && old.height == height
        for y in 0..<height {
            // A row its drawer numbered the same in both holds the same cells: not read at all
            // (the last frame's cells are out of the caches by the next key).
            if sameSize, rowStamps[y] != 0, rowStamps[y] == old.rowStamps[y] { continue }
            if sameSize, sameBits(row: y, as: old) { continue }
            // Room for a changed row or two at once (a key's frame: the row typed in and the
            // title), not grown from nothing one doubling at a time; past that it doubles.
            if changes.isEmpty { changes.reserveCapacity(2 * width) }
            for x in 0..<width {
                let index = y * width + x
                let cell = cells[index]
                if !sameSize || old.cells[index] != cell {
                    changes.append(CellChange(x: x, y: y, cell: cell))
                }
            }
        }
        return changes
    }

    /// Whether row `y` holds the same bytes here as in `old` (of the same size). Equal cells
    /// are equal bytes (see `Cell`), so most rows of a frame are compared with one `memcmp`, and
    /// only a row that changed is gone through cell by cell.
    private func sameBits(row y: Int, as old: ScreenBuffer) -> Bool {
        guard width > 0 else { return true }
        let range = (y * width)..<((y + 1) * width)
        return cells[range].withUnsafeBytes { mine in
            old.cells[range].withUnsafeBytes { theirs in
                mine.count == theirs.count && memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0
            }
        }
    }
}

extension ScreenBuffer {
    /// The places, row by row, of the cells whose grapheme takes more than `bytes` bytes of
    /// UTF-8. A backend that must write such clusters again looks at every cell of every
    /// frame; done here, where a cell's length is read in place, that is a pass over plain
    /// bytes rather than a call per cell.
    public func places(ofGraphemesLongerThan bytes: Int) -> [(x: Int, y: Int)] {
        var places: [(x: Int, y: Int)] = []
        guard width > 0 else { return places }
        cells.withUnsafeBufferPointer { cells in
            for index in cells.indices where cells[index].utf8Count > bytes {
                places.append((index % width, index / width))
            }
        }
        return places
    }
}

extension ScreenBuffer {
    /// Equal cells make equal buffers: the rows' numbers are a drawer's note, not content.
    public static func == (a: ScreenBuffer, b: ScreenBuffer) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(cells)
    }
}
