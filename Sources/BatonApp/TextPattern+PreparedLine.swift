/// A line as `TextPattern` matches it.
extension TextPattern {
    /// A line as `regexec` reads it: its bytes NUL-terminated; where each character starts is
    /// worked out only when a match needs it in columns (most lines of a search have none, and
    /// segmenting a line into characters costs more than matching it).
    struct PreparedLine {
        let line: String
        var bytes: [UInt8]
        private var characterStarts: [Int]?
        /// The bytes the line holds, once a pattern asked.
        private var present: ByteSet?

        /// Whether every byte is ASCII, once a column was asked for.
        private var allASCII: Bool?

        init(_ line: String) {
            self.line = line
            bytes = Array(line.utf8)
            bytes.append(0)
        }

        /// A line given as its UTF-8 bytes (without a line break).
        init(bytes: some Collection<UInt8>) {
            self.bytes = Array(bytes)
            self.bytes.append(0)
            line = String(decoding: self.bytes.dropLast(), as: UTF8.self)
        }

        /// Every byte is ASCII: each is a character of its own (a line holds no "\r\n", the one
        /// pair of ASCII bytes that is one character), and no segmenting is needed. Worked out
        /// when first asked: replacing in 16 MB reads most lines in bytes only.
        var isASCII: Bool {
            mutating get {
                if let allASCII { return allASCII }
                let ascii = bytes.dropLast().allSatisfy { $0 < 0x80 }
                allASCII = ascii
                return ascii
            }
        }

        /// Whether the line holds any byte of `set`.
        mutating func holdsAny(of set: ByteSet) -> Bool {
            if let present { return present.intersects(set) }
            let present = ByteSet(bytes.dropLast())
            self.present = present
            return present.intersects(set)
        }

        /// How many characters the line has.
        var characterCount: Int {
            mutating get { isASCII ? byteCount : starts.count - 1 }
        }

        /// The byte where character `column` starts (the line's length for the one past its
        /// end); nil past that.
        mutating func byte(ofCharacter column: Int) -> Int? {
            if isASCII { return column <= byteCount ? column : nil }
            let starts = self.starts
            return column < starts.count ? starts[column] : nil
        }

        /// Bytes of the line, without the NUL.
        var byteCount: Int { bytes.count - 1 }

        /// The byte offset of each character, and the line's length last.
        var starts: [Int] {
            mutating get {
                if let characterStarts { return characterStarts }
                var starts: [Int] = []
                starts.reserveCapacity(bytes.count)
                var offset = 0
                for character in line {
                    starts.append(offset)
                    offset += character.utf8.count
                }
                starts.append(offset)
                characterStarts = starts
                return starts
            }
        }

        /// The first character starting at or after `byte` (a match starts on a boundary unless
        /// the expression split a character, which then counts from the next).
        mutating func character(atByte byte: Int) -> Int {
            if isASCII { return min(byte, byteCount) }
            let starts = self.starts
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] < byte { low = middle + 1 } else { high = middle }
            }
            return low
        }

        func text(_ bytes: Range<Int>) -> String {
            String(decoding: self.bytes[bytes], as: UTF8.self)
        }
    }
}
