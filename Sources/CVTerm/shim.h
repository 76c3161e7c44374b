#pragma once

#include <vterm.h>
#include <stdint.h>

// libvterm's cell holds its attributes in bit-fields and its colours in unions, which Swift
// reads awkwardly: these flatten one cell into plain fields.

/// A cell of the screen, flattened: the code points, the width, the attribute bits
/// (1 bold, 2 underline, 4 italic, 8 blink, 16 reverse, 32 strike) and each colour as
/// -1 for the default, 0-255 for an index, or 0x1000000 + 0xRRGGBB.
typedef struct {
    uint32_t chars[VTERM_MAX_CHARS_PER_CELL];
    int count;
    int width;
    int attributes;
    int foreground;
    int background;
} baton_vterm_cell;

static inline int baton_vterm_color(const VTermColor *color, int isDefault) {
    if (isDefault) return -1;
    if (VTERM_COLOR_IS_INDEXED(color)) return color->indexed.idx;
    return 0x1000000 + (color->rgb.red << 16) + (color->rgb.green << 8) + color->rgb.blue;
}

/// A pen colour libvterm's state sets (`setpenattr`), as `baton_vterm_color` writes it.
static inline int baton_vterm_value_color(const VTermValue *value, int background) {
    const VTermColor *color = &value->color;
    return baton_vterm_color(color, background ? VTERM_COLOR_IS_DEFAULT_BG(color) : VTERM_COLOR_IS_DEFAULT_FG(color));
}

/// Reads the cell at (`row`, `col`) of `screen` into `out`; 0 when there is none.
static inline int baton_vterm_get_cell(const VTermScreen *screen, int row, int col, baton_vterm_cell *out) {
    VTermPos pos = { row, col };
    VTermScreenCell cell;
    if (!vterm_screen_get_cell(screen, pos, &cell)) return 0;
    int n = 0;
    while (n < VTERM_MAX_CHARS_PER_CELL && cell.chars[n] != 0) {
        out->chars[n] = cell.chars[n];
        n++;
    }
    out->count = n;
    out->width = cell.width;
    out->attributes = (cell.attrs.bold ? 1 : 0) | (cell.attrs.underline ? 2 : 0) | (cell.attrs.italic ? 4 : 0)
        | (cell.attrs.blink ? 8 : 0) | (cell.attrs.reverse ? 16 : 0) | (cell.attrs.strike ? 32 : 0);
    out->foreground = baton_vterm_color(&cell.fg, VTERM_COLOR_IS_DEFAULT_FG(&cell.fg));
    out->background = baton_vterm_color(&cell.bg, VTERM_COLOR_IS_DEFAULT_BG(&cell.bg));
    return 1;
}
