internal import CVTerm
import Glibc

extension TerminalEmulator {
    /// `bytes` to libvterm, less the C1 controls written in UTF-8 (U+0080 to U+009F, `C2 80` to
    /// `C2 9F`) and any `C2` that does not start a character at once. libvterm 0.1.4 gives those
    /// code points a width of -1, which moves its cursor to column -1, and a tab stop set there
    /// (`ESC H`) or a character drawn by its screen layer then writes outside its memory (a `cat`
    /// of such a file crashed the keeper). Its UTF-8 decoder also keeps an unfinished character
    /// across controls and escape sequences, so `C2`, a CR or an `ESC [ m`, then `85` is U+0085
    /// as well: a `C2` goes unless the next byte ends a character (`A0` to `BF`). A terminal that
    /// does not act on a C1 control ignores it, and so does the keeper; a stray `C2` would have
    /// been a replacement character. A `C2` at the end of a read waits for the next.
    func input(_ bytes: UnsafeRawBufferPointer) {
        guard var rest = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        if heldC2 {
            heldC2 = false
            let next = rest.load(as: UInt8.self)
            if (0xA0...0xBF).contains(next) {
                // libvterm finishes the character with the next byte written.
                Self.leadC2.withUnsafeBytes { feed($0.baseAddress!, 1) }
            } else if (0x80...0x9F).contains(next) {
                rest += 1
                count -= 1
            }
        }
        while count > 0 {
            guard let found = memchr(rest, 0xC2, count) else {
                feed(rest, count)
                return
            }
            let before = UnsafeRawPointer(found) - rest
            if before > 0 { feed(rest, before) }
            if before + 1 == count {
                heldC2 = true
                return
            }
            let next = found.load(fromByteOffset: 1, as: UInt8.self)
            let taken: Int
            if (0xA0...0xBF).contains(next) {
                feed(found, 2)
                taken = 2
            } else {
                // A C1 control goes with its C2; any other byte stays, and is looked at next.
                taken = (0x80...0x9F).contains(next) ? 2 : 1
            }
            rest = UnsafeRawPointer(found) + taken
            count -= before + taken
        }
    }

    /// `count` bytes at `start` to libvterm, less what it cannot take safely (`SequenceGuard`): a
    /// REP with no character to repeat, or one of width 0, is cancelled (CAN), as xterm ignores
    /// it; a sequence's parameters past the sixteenth are left out.
    private func feed(_ start: UnsafeRawPointer, _ count: Int) {
        let bytes = UnsafeRawBufferPointer(start: start, count: count)
        var from = 0
        while let (at, found) = sequences.next(in: bytes, from: from) {
            if at > from { _ = vterm_input_write(vterm, (start + from).assumingMemoryBound(to: CChar.self), at - from) }
            // The bytes before it are parsed: the width is the one libvterm would repeat at.
            if found == .repeatFinal {
                if cells.pointee.glyphWidth > 0 {
                    _ = vterm_input_write(vterm, (start + at).assumingMemoryBound(to: CChar.self), 1)
                } else {
                    _ = vterm_input_write(vterm, Self.cancel, 1)
                }
            }
            from = at + 1
        }
        if from < count { _ = vterm_input_write(vterm, (start + from).assumingMemoryBound(to: CChar.self), count - from) }
    }

    /// CAN, which ends the sequence it comes in.
    private static let cancel: [CChar] = [0x18]

    /// The byte `C2`, for `input`.
    private static let leadC2: [CChar] = [CChar(bitPattern: 0xC2)]
}
