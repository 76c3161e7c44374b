/// Which bytes of a flood of plain text the screen never needs to see: the lines that scroll off
/// before anyone could read them. Everything else libvterm parses as it always does.
///
/// A `cat` of a big file is 100 MB of lines on their way past the screen; libvterm's parser and
/// state alone take 1.3 s per 100 MB to draw them (`handoff-bench shell-output`), and only the
/// last screenful is ever shown (the keeper sends the newest screen, not every byte). So at the
/// start of a run of reads, the text whose lines are all scrolled off by what follows is left
/// unparsed, when that cannot change what the screen or the emulator holds after the run:
///
/// - Plain text is printable ASCII, CR, LF and tab. It cannot start an escape sequence, change a
///   mode, the pen or a tab stop, nor end a multi-byte character.
/// - The emulator must be drawing plain text as it stands: since the last byte that was not plain,
///   it drew a character (so libvterm's parser is not inside an escape sequence or a string) and a
///   line feed scrolled the whole screen up (so the scrolling region is the whole screen, with no
///   margins). Plain text changes neither.
/// - What is kept (`T`) begins just after a line feed and has 2 × rows + 1 line feeds. Wherever
///   the cursor was, the first rows − 1 of them bring it to the last row; a CR then (one within
///   the next three lines is required) puts it in the first column with no wrap pending; and the
///   rows line feeds after that scroll every row shown before off the screen. From that CR on,
///   the emulator is in the same state whether the text before `T` was parsed or not, and every
///   row shown is drawn by `T` alone.
///
/// `ScrolledTextTests` checks this against libvterm itself: random output of every kind, then a
/// flood, parsed whole on one emulator and skipped on another, leave the same screen and the
/// same state for whatever comes next.
struct ScrolledText {
    let rows: Int
    /// Bytes scanned so far.
    private(set) var scanned = 0
    /// Where the first byte that is not plain text was found, once it was.
    private(set) var plainEnd: Int?
    /// Each line feed of the plain text: its offset, and whether a CR came since the line feed before.
    private var feeds: [Int] = []
    private var returns: [Bool] = []
    private var returnSinceFeed = false

    init(rows: Int) {
        self.rows = rows
    }

    /// Whether `byte` is plain text.
    @inline(__always) static func isPlain(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte < 0x7F) || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The next read of the run.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        defer { scanned += bytes.count }
        guard plainEnd == nil else { return }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if byte == 0x0A {
                feeds.append(scanned + index)
                returns.append(returnSinceFeed)
                returnSinceFeed = false
            } else if byte == 0x0D {
                returnSinceFeed = true
            } else if !Self.isPlain(byte) {
                plainEnd = scanned + index
                return
            }
        }
    }

    /// How many bytes at the start of the run need not be parsed (0 when none may be left out),
    /// given that the emulator was drawing plain text before the run (see the type's comment).
    var skippable: Int {
        let kept = 2 * rows + 1
        let count = feeds.count
        guard rows > 0, count > kept else { return 0 }
        // The line feeds kept are feeds[first...]; a CR must come after the rows - 1 first of
        // them and before the rows last: in one of the three lines ending at feeds[first + rows - 1 ... first + rows + 1].
        let first = count - kept
        guard returns[(first + rows - 1)...(first + rows + 1)].contains(true) else { return 0 }
        return feeds[first - 1] + 1
    }
}

extension TerminalEmulator {
    /// How many bytes at the start of a run of reads may go unparsed if the run is written next,
    /// in order, with nothing else between (`ScrolledText`); they are counted in `skippedBytes`.
    /// `scan` hands the run's reads to the text in order, and may stop once `plainEnd` is found.
    func skippable(scanning scan: (inout ScrolledText) -> Void) -> Int {
        guard drawsPlainText else { return 0 }
        var text = ScrolledText(rows: size.rows)
        scan(&text)
        // libvterm's parser is in its ground state there, and plain text keeps it so.
        if text.skippable > 0 { sequences.reset() }
        skippedBytes += text.skippable
        return text.skippable
    }

    /// Takes `read` less its first `skip` bytes; what is left to skip of the reads after it.
    func write(_ read: UnsafeRawBufferPointer, skipping skip: Int) -> Int {
        let left = min(skip, read.count)
        if left < read.count { write(UnsafeRawBufferPointer(rebasing: read[left...])) }
        return skip - left
    }
}
