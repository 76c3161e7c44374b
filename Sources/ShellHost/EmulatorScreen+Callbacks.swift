internal import CVTerm

/// libvterm's state layer calls these as it parses the program's output; `user` is the
/// `EmulatorScreen`. Each does what libvterm's screen layer does with the same call.
extension EmulatorScreen {
    nonisolated(unsafe) static let callbacks: UnsafeMutablePointer<VTermStateCallbacks> = {
        let callbacks = UnsafeMutablePointer<VTermStateCallbacks>.allocate(capacity: 1)
        callbacks.initialize(to: VTermStateCallbacks(
            putglyph: { info, position, user in
                guard let info else { return 0 }
                return screen(user).pointee.put(info, at: position)
            },
            movecursor: { position, _, _, user in
                let screen = screen(user)
                screen.pointee.cursorRow = Int(position.row)
                screen.pointee.cursorColumn = Int(position.col)
                screen.pointee.changed = true
                return 1
            },
            scrollrect: { rect, downward, rightward, user in
                let screen = screen(user)
                // Whole rows moving up or down: the row table turns. Anything else (a scroll
                // inside left and right margins, or sideways) libvterm does as a move and an erase.
                guard rightward == 0, rect.start_col == 0, Int(rect.end_col) == screen.pointee.columns else { return 0 }
                if downward == 1, rect.start_row == 0, Int(rect.end_row) == screen.pointee.rows { screen.pointee.scrolledWhole = true }
                screen.pointee.scroll(rows: span(rect.start_row, rect.end_row), downward: Int(downward))
                return 1
            },
            moverect: { destination, source, user in
                screen(user).pointee.move(destination, from: source)
                return 1
            },
            erase: { rect, selective, user in
                screen(user).pointee.erase(
                    rows: span(rect.start_row, rect.end_row), columns: span(rect.start_col, rect.end_col),
                    selective: selective != 0)
                return 1
            },
            initpen: nil,
            setpenattr: { attribute, value, user in
                guard let value else { return 0 }
                screen(user).pointee.setPen(attribute, value.pointee)
                return 1
            },
            settermprop: { property, value, user in
                guard let value else { return 0 }
                screen(user).pointee.setProperty(property, value.pointee)
                return 1
            },
            bell: nil,
            resize: { rows, columns, delta, user in
                guard let delta else { return 0 }
                let screen = screen(user)
                var cursor = VTermPos()
                if let state = screen.pointee.state { vterm_state_get_cursorpos(state, &cursor) }
                screen.pointee.resize(rows: Int(rows), columns: Int(columns), cursorRow: Int(cursor.row), delta: &delta.pointee)
                return 1
            },
            setlineinfo: { row, new, old, user in
                guard let new, let old else { return 0 }
                let screen = screen(user)
                let row = Int(row)
                guard new.pointee.doublewidth != old.pointee.doublewidth || new.pointee.doubleheight != old.pointee.doubleheight else {
                    return 1
                }
                // A double-width line shows its left half: the right half is blanked.
                if new.pointee.doublewidth != 0 {
                    let columns = screen.pointee.columns
                    screen.pointee.erase(rows: row..<(row + 1), columns: (columns / 2)..<columns, selective: false)
                }
                screen.pointee.damage(row..<(row + 1))
                return 1
            }))
        return callbacks
    }()

    /// `start..<end`, empty when libvterm hands a rectangle whose end comes first.
    static func span(_ start: Int32, _ end: Int32) -> Range<Int> { Int(start)..<Int(max(start, end)) }

    @inline(__always) static func screen(_ user: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<EmulatorScreen> {
        user.unsafelyUnwrapped.assumingMemoryBound(to: EmulatorScreen.self)
    }

    /// Writes a character (its code points, up to six) at `position` with the pen; a wide one
    /// marks the cells its right half covers.
    @inline(__always)
    mutating func put(_ info: UnsafeMutablePointer<VTermGlyphInfo>, at position: VTermPos) -> Int32 {
        // libvterm keeps this width for its REP whether the character lands on the screen or not.
        glyphWidth = info.pointee.width
        let row = Int(position.row), column = Int(position.col)
        guard row >= 0, row < rows, column >= 0, column < columns, let chars = info.pointee.chars else { return 0 }
        let cells = self.row(row)
        withUnsafeMutablePointer(to: &cells[column].chars) { tuple in
            tuple.withMemoryRebound(to: UInt32.self, capacity: 6) { out in
                var index = 0
                while index < 6, chars[index] != 0 {
                    out[index] = chars[index]
                    index += 1
                }
                if index < 6 { out[index] = 0 }
            }
        }
        var pen = self.pen
        if info.pointee.protected_cell != 0 { pen.attributes |= EmulatorPen.protected }
        cells[column].pen = pen
        let width = Int(info.pointee.width)
        if width > 1 {
            for next in (column + 1)..<min(column + width, columns) { cells[next].chars.0 = Self.continuation }
        }
        damaged[row] = true
        changed = true
        printed = true
        return 1
    }

    mutating func setPen(_ attribute: VTermAttr, _ value: VTermValue) {
        let bit: UInt8, on: Bool
        switch attribute {
        case VTERM_ATTR_BOLD: (bit, on) = (1, value.boolean != 0)
        case VTERM_ATTR_UNDERLINE: (bit, on) = (2, value.number != 0)
        case VTERM_ATTR_ITALIC: (bit, on) = (4, value.boolean != 0)
        case VTERM_ATTR_BLINK: (bit, on) = (8, value.boolean != 0)
        case VTERM_ATTR_REVERSE: (bit, on) = (16, value.boolean != 0)
        case VTERM_ATTR_STRIKE: (bit, on) = (32, value.boolean != 0)
        case VTERM_ATTR_FOREGROUND:
            var value = value
            pen.foreground = Int32(baton_vterm_value_color(&value, 0))
            return
        case VTERM_ATTR_BACKGROUND:
            var value = value
            pen.background = Int32(baton_vterm_value_color(&value, 1))
            return
        default: return
        }
        if on { pen.attributes |= bit } else { pen.attributes &= ~bit }
    }

    mutating func setProperty(_ property: VTermProp, _ value: VTermValue) {
        changed = true
        switch property {
        case VTERM_PROP_ALTSCREEN:
            let on = value.boolean != 0
            if on != onAlternate {
                swap(&shown, &hidden)
                onAlternate = on
            }
            // Entering it, libvterm erases it next; leaving it, the primary shows again.
            if !on { damage(0..<rows) }
        case VTERM_PROP_REVERSE:
            reverse = value.boolean != 0
            damage(0..<rows)
        case VTERM_PROP_CURSORVISIBLE: cursorVisible = value.boolean != 0
        case VTERM_PROP_MOUSE: mouse = Int(value.number)
        case VTERM_PROP_TITLE:
            guard let pointer = value.string else { return }
            let title = String(cString: pointer)
            self.title = String(String.UnicodeScalarView(
                title.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }).prefix(200))
        default: break
        }
    }
}
