import NIOCore

extension TerminalEmulator {
    /// Takes a run of reads of the program's output, in order, leaving the screen and the
    /// emulator as `write` of each in turn would; the plain text at its start whose lines all
    /// scroll off before its end is not parsed (`ScrolledText`). Returns the bytes left out.
    @discardableResult
    public func write(run reads: [ByteBuffer]) -> Int {
        let skipped = skippable(in: reads)
        var skip = skipped
        for read in reads { skip = write(read, skipping: skip) }
        return skipped
    }

    /// How many bytes at the start of `reads` may go unparsed if they are written next, in order,
    /// with nothing else between (`ScrolledText`); they are counted in `skippedBytes`.
    func skippable(in reads: [ByteBuffer]) -> Int {
        skippable { text in
            for read in reads {
                read.withUnsafeReadableBytes { text.scan($0) }
                if text.plainEnd != nil { break }
            }
        }
    }

    /// Takes `read` less its first `skip` bytes; what is left to skip of the reads after it.
    func write(_ read: ByteBuffer, skipping skip: Int) -> Int {
        read.withUnsafeReadableBytes { write($0, skipping: skip) }
    }
}
