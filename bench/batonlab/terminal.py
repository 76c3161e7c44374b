"""A small terminal emulator: enough of xterm for what ncurses sends with TERM=xterm-256color.

`baton` draws its counter in big block digits; the benchmarks replay its pty output into a
`Screen` and ask `shows_count` whether the count a person would read is there.
"""

import codecs
import unicodedata


class Screen:
    """Replays terminal output into a grid of cells, to read what a person would see."""

    def __init__(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.state = "text"
        self.sequence = ""
        self.last = " "
        self.reset()

    def reset(self):
        self.grid = [[" "] * self.cols for _ in range(self.rows)]
        self.x = self.y = 0
        self.saved = (0, 0)
        self.top, self.bottom = 0, self.rows - 1
        self.wrap_pending = False

    def lines(self):
        return ["".join(c for c in row if c is not None).rstrip() for row in self.grid]

    def feed(self, data):
        for ch in self.decoder.decode(data):
            self._char(ch)

    # -- parsing

    def _char(self, ch):
        state = self.state
        if state == "text":
            if ch == "\x1b":
                self.state = "escape"
            elif ch < " " or ch == "\x7f":
                self._control(ch)
            else:
                self._print(ch)
        elif state == "escape":
            self.state = "text"
            if ch == "[":
                self.state, self.sequence = "csi", ""
            elif ch in "]P^_X":
                self.state = "string"
            elif ch in "()*+#%":
                self.state = "charset"
            elif ch == "7":
                self.saved = (self.x, self.y)
            elif ch == "8":
                self.x, self.y = self.saved
            elif ch == "M":
                if self.y == self.top:
                    self._scroll_down(1)
                else:
                    self.y = max(0, self.y - 1)
            elif ch == "D":
                self._linefeed()
            elif ch == "E":
                self.x = 0
                self._linefeed()
            elif ch == "c":
                self.reset()
        elif state == "charset":
            self.state = "text"
        elif state == "string":  # OSC / DCS ... until BEL or ESC \
            if ch == "\x07":
                self.state = "text"
            elif ch == "\x1b":
                self.state = "string-escape"
        elif state == "string-escape":
            self.state = "text" if ch == "\\" else "string"
        elif state == "csi":
            if "\x40" <= ch <= "\x7e":
                self.state = "text"
                self._csi(self.sequence, ch)
            elif ch == "\x1b":
                self.state = "escape"
            else:
                self.sequence += ch

    def _control(self, ch):
        if ch == "\r":
            self.x, self.wrap_pending = 0, False
        elif ch in "\n\x0b\x0c":
            self._linefeed()
        elif ch == "\b":
            self.x, self.wrap_pending = max(0, self.x - 1), False
        elif ch == "\t":
            self.x = min(self.cols - 1, (self.x // 8 + 1) * 8)

    def _print(self, ch):
        width = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if unicodedata.combining(ch):
            return
        if self.wrap_pending or self.x + width > self.cols:
            self.x, self.wrap_pending = 0, False
            self._linefeed()
        self.grid[self.y][self.x] = ch
        if width == 2 and self.x + 1 < self.cols:
            self.grid[self.y][self.x + 1] = None
        self.last = ch
        self.x += width
        if self.x >= self.cols:
            self.x, self.wrap_pending = self.cols - 1, True

    def _linefeed(self):
        self.wrap_pending = False
        if self.y == self.bottom:
            self._scroll_up(1)
        else:
            self.y = min(self.rows - 1, self.y + 1)

    def _scroll_up(self, n):
        for _ in range(n):
            del self.grid[self.top]
            self.grid.insert(self.bottom, [" "] * self.cols)

    def _scroll_down(self, n):
        for _ in range(n):
            del self.grid[self.bottom]
            self.grid.insert(self.top, [" "] * self.cols)

    def _csi(self, sequence, final):
        private = sequence[:1] in ("?", ">", "=", "!")
        body = sequence[1:] if private else sequence
        try:
            params = [int(p) if p else 0 for p in body.split(";")] if body else []
        except ValueError:
            return
        p1 = params[0] if params else 0
        n = max(1, p1)
        self.wrap_pending = False
        if private:
            if final in "hl" and any(p in (47, 1047, 1049) for p in params):
                self.grid = [[" "] * self.cols for _ in range(self.rows)]
            return
        if final in "Hf":
            self.y = min(self.rows - 1, max(1, p1) - 1)
            self.x = min(self.cols - 1, max(1, params[1] if len(params) > 1 else 1) - 1)
        elif final == "A":
            self.y = max(0, self.y - n)
        elif final in "Be":
            self.y = min(self.rows - 1, self.y + n)
        elif final in "Ca":
            self.x = min(self.cols - 1, self.x + n)
        elif final == "D":
            self.x = max(0, self.x - n)
        elif final in "G`":
            self.x = min(self.cols - 1, n - 1)
        elif final == "d":
            self.y = min(self.rows - 1, n - 1)
        elif final == "J":
            if p1 == 0:
                self._erase(self.y, self.x, self.cols)
                for row in range(self.y + 1, self.rows):
                    self._erase(row, 0, self.cols)
            elif p1 == 1:
                for row in range(0, self.y):
                    self._erase(row, 0, self.cols)
                self._erase(self.y, 0, self.x + 1)
            else:
                for row in range(self.rows):
                    self._erase(row, 0, self.cols)
        elif final == "K":
            if p1 == 0:
                self._erase(self.y, self.x, self.cols)
            elif p1 == 1:
                self._erase(self.y, 0, self.x + 1)
            else:
                self._erase(self.y, 0, self.cols)
        elif final == "X":
            self._erase(self.y, self.x, min(self.cols, self.x + n))
        elif final == "@":
            row = self.grid[self.y]
            row[self.x:self.x] = [" "] * n
            del row[self.cols:]
        elif final == "P":
            row = self.grid[self.y]
            del row[self.x:self.x + n]
            row.extend([" "] * (self.cols - len(row)))
        elif final in "LM":
            if self.top <= self.y <= self.bottom:
                saved_top, self.top = self.top, self.y
                (self._scroll_down if final == "L" else self._scroll_up)(n)
                self.top = saved_top
        elif final == "S":
            self._scroll_up(n)
        elif final == "T":
            self._scroll_down(n)
        elif final == "r":
            top = max(1, p1) - 1
            bottom = (params[1] if len(params) > 1 and params[1] else self.rows) - 1
            if top < bottom < self.rows:
                self.top, self.bottom = top, bottom
            self.x = self.y = 0
        elif final == "b":  # REP: repeat the last printed character
            for _ in range(n):
                self._print(self.last)
        elif final == "s":
            self.saved = (self.x, self.y)
        elif final == "u":
            self.x, self.y = self.saved

    def _erase(self, row, start, end):
        for col in range(max(0, start), min(self.cols, end)):
            self.grid[row][col] = " "


BLOCK_FONT = {
    "0": ["###", "# #", "# #", "# #", "###"], "1": [" # ", "## ", " # ", " # ", "###"],
    "2": ["###", "  #", "###", "#  ", "###"], "3": ["###", "  #", "###", "  #", "###"],
    "4": ["# #", "# #", "###", "  #", "  #"], "5": ["###", "#  ", "###", "  #", "###"],
    "6": ["###", "#  ", "###", "# #", "###"], "7": ["###", "  #", "  #", "  #", "  #"],
    "8": ["###", "# #", "###", "# #", "###"], "9": ["###", "# #", "###", "  #", "###"],
    "-": ["   ", "   ", "###", "   ", "   "],
}


def block_rows(text):
    """`text` in the counter's block font: 5 rows, each pixel `██`, glyphs two columns apart."""
    return ["  ".join("".join("██" if p == "#" else "  " for p in BLOCK_FONT[c][row]) for c in text)
            for row in range(5)]


def shows_count(lines, count):
    """Whether the screen shows the counter at `count`: block digits, or a row of just the number."""
    text = str(count)
    content = lines[:-1]  # the status bar
    if any(line.strip() == text for line in content):
        return True
    want = [row.rstrip() for row in block_rows(text)]
    for top in range(len(content) - len(want) + 1):
        column = content[top].find(want[0])
        if column < 0:
            continue
        if all(content[top + i][:column].strip() == "" and content[top + i][column:].rstrip() == want[i]
               for i in range(len(want))):
            return True
    return False
