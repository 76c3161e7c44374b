import BatonShell

/// A cell's colour as the colour number ncurses takes for a terminal of `colors` colours: -1
/// the terminal's default (`use_default_colors`), an index below `colors`, or on a direct-colour
/// terminal (16,777,216 colours) 0xRRGGBB. Colours the terminal lacks map to the nearest it has:
/// 24-bit to the nearest of the 256 indexed ones, and on fewer, the indexed ones to the nearest
/// of 16 or 8 by xterm's default palette. Pure.
enum ShellPalette {
    /// xterm's default values of the 16 basic and bright colours.
    static let basic: [(UInt8, UInt8, UInt8)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]
    /// The levels of each channel in the 6 × 6 × 6 cube, indices 16–231.
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    static let directColors = 0x100_0000

    static func number(for color: ShellColor, colors: Int) -> Int32 {
        switch color {
        case .default:
            return -1
        case .indexed(let index):
            return number(forIndex: Int(index), colors: colors)
        case .rgb(let r, let g, let b):
            if colors >= directColors { return Int32(Int(r) << 16 | Int(g) << 8 | Int(b)) }
            return number(forIndex: nearestIndex(r, g, b), colors: colors)
        }
    }

    /// Indexed colour `index` (0–255) on a terminal of `colors` colours.
    static func number(forIndex index: Int, colors: Int) -> Int32 {
        switch colors {
        case directColors...:
            // A direct-colour terminal reads numbers from 8 up as 0xRRGGBB.
            guard index >= 8 else { return Int32(index) }
            let (r, g, b) = rgb(ofIndex: index)
            return Int32(Int(r) << 16 | Int(g) << 8 | Int(b))
        case 256...:
            return Int32(index)
        case 16...:
            return Int32(index < 16 ? index : nearest(rgb(ofIndex: index), among: 16))
        case 8...:
            if index < 8 { return Int32(index) }
            if index < 16 { return Int32(index - 8) }
            return Int32(nearest(rgb(ofIndex: index), among: 8))
        default:
            return -1
        }
    }

    /// The red, green and blue of indexed colour `index` in xterm's default palette.
    static func rgb(ofIndex index: Int) -> (UInt8, UInt8, UInt8) {
        switch index {
        case ..<16:
            return basic[max(0, index)]
        case 16..<232:
            let cube = index - 16
            return (UInt8(cubeLevels[cube / 36]), UInt8(cubeLevels[cube / 6 % 6]), UInt8(cubeLevels[cube % 6]))
        default:
            let level = UInt8(8 + 10 * (min(index, 255) - 232))
            return (level, level, level)
        }
    }

    /// The index 16–255 (the cube or the grey ramp) nearest to a 24-bit colour.
    static func nearestIndex(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        func level(_ value: UInt8) -> Int {
            cubeLevels.indices.min { abs(cubeLevels[$0] - Int(value)) < abs(cubeLevels[$1] - Int(value)) }!
        }
        let cube = 16 + 36 * level(r) + 6 * level(g) + level(b)
        let average = (Int(r) + Int(g) + Int(b)) / 3
        let grey = 232 + min(23, max(0, (average - 8 + 5) / 10))
        return distance(rgb(ofIndex: grey), (r, g, b)) < distance(rgb(ofIndex: cube), (r, g, b)) ? grey : cube
    }

    /// The index below `count` whose default colour is nearest to `color`.
    static func nearest(_ color: (UInt8, UInt8, UInt8), among count: Int) -> Int {
        (0..<count).min { distance(basic[$0], color) < distance(basic[$1], color) }!
    }

    static func distance(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8)) -> Int {
        let dr = Int(a.0) - Int(b.0), dg = Int(a.1) - Int(b.1), db = Int(a.2) - Int(b.2)
        return dr * dr + dg * dg + db * db
    }
}

/// The colour pairs a display made, keyed by their two colour numbers: each new combination
/// gets the next number (`init_extended_pair`), up to the terminal's limit; the default on the
/// default is pair 0, and a combination past the limit is drawn in pair 0. Pure: the caller
/// makes the pairs this hands out.
struct ShellColorPairs {
    private var numbers: [Int64: Int32] = [:]
    private var next: Int32 = 1

    /// The pair for foreground `fg` and background `bg`, and whether the caller must make it
    /// now; `limit` is how many pairs the terminal has (`COLOR_PAIRS`).
    mutating func pair(fg: Int32, bg: Int32, limit: Int) -> (number: Int32, isNew: Bool) {
        if fg == -1 && bg == -1 { return (0, false) }
        let key = Int64(fg) << 32 | Int64(UInt32(bitPattern: bg))
        if let known = numbers[key] { return (known, false) }
        guard Int(next) < limit else { return (0, false) }
        numbers[key] = next
        next += 1
        return (next - 1, true)
    }

    var count: Int { numbers.count }
}
