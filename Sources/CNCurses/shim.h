#pragma once

// SwiftPM drops pkg-config's -D_XOPEN_SOURCE, so ask for the wide-character
// API explicitly before <ncurses.h> decides it is not wanted.
#define NCURSES_WIDECHAR 1

#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <sys/ioctl.h>
#include <ncurses.h>

// Everything below wraps a macro or a global that Swift 6 cannot use directly
// (function-like macros are not imported, and ncurses' mutable globals are not
// concurrency-safe). Callers hold NCursesBackend's lock while using them.

/// The current screen's standard window.
static inline WINDOW *baton_stdscr(void) { return stdscr; }

/// Rows of the current screen (the `LINES` global).
static inline int baton_lines(void) { return LINES; }

/// Columns of the current screen (the `COLS` global).
static inline int baton_cols(void) { return COLS; }

/// `getmaxyx`: the size of a window.
static inline void baton_getmaxyx(WINDOW *window, int *rows, int *columns) {
    int y, x;
    getmaxyx(window, y, x);
    *rows = y;
    *columns = x;
}

/// Attribute bits (function-like macros in <ncurses.h>).
static inline attr_t baton_attr_normal(void) { return A_NORMAL; }
static inline attr_t baton_attr_bold(void) { return A_BOLD; }
static inline attr_t baton_attr_dim(void) { return A_DIM; }
static inline attr_t baton_attr_reverse(void) { return A_REVERSE; }
static inline attr_t baton_attr_underline(void) { return A_UNDERLINE; }

static inline attr_t baton_attr_italic(void) { return A_ITALIC; }
static inline attr_t baton_attr_blink(void) { return A_BLINK; }

/// `COLOR_PAIR(n)`.
static inline int baton_color_pair(int pair) { return COLOR_PAIR(pair); }

/// Whether the terminal supports colour (wrapped so callers need not know it is a function).
static inline bool baton_has_colors(void) { return has_colors(); }

/// Key codes that `wget_wch` reports with `KEY_CODE_YES`.
static inline int baton_key_code_yes(void) { return KEY_CODE_YES; }
static inline int baton_key_down(void) { return KEY_DOWN; }
static inline int baton_key_up(void) { return KEY_UP; }
static inline int baton_key_left(void) { return KEY_LEFT; }
static inline int baton_key_right(void) { return KEY_RIGHT; }
static inline int baton_key_home(void) { return KEY_HOME; }
static inline int baton_key_end(void) { return KEY_END; }
static inline int baton_key_backspace(void) { return KEY_BACKSPACE; }
static inline int baton_key_delete(void) { return KEY_DC; }
static inline int baton_key_page_down(void) { return KEY_NPAGE; }
static inline int baton_key_page_up(void) { return KEY_PPAGE; }
static inline int baton_key_enter(void) { return KEY_ENTER; }
static inline int baton_key_back_tab(void) { return KEY_BTAB; }
static inline int baton_key_resize(void) { return KEY_RESIZE; }
/// The codes `define_key` gives the terminal's paste markers (terminfo `PS` and `PE`): above
/// every code ncurses defines.
static inline int baton_key_paste_start(void) { return KEY_MAX + 1; }
static inline int baton_key_paste_end(void) { return KEY_MAX + 2; }
/// `tputs` from <term.h> (which is not included: its capability macros would name `lines`,
/// `columns` and hundreds more).
extern int tputs(const char *, int, int (*)(int));
/// From <term.h> (not included, as above): loading another terminal type's terminfo entry.
struct term;
extern struct term *set_curterm(struct term *);
extern int del_curterm(struct term *);
extern int setupterm(const char *, int, int *);

/// Copies string capability `name` of terminal type `type`'s terminfo entry (not the
/// current terminal's) into `out` (`size` bytes, NUL-terminated); returns its length, or -1
/// when the entry or the capability is missing or too long. The current terminal is put back
/// before returning: the entry is loaded with `setupterm` into a terminal of its own, read
/// with `tigetstr`, and freed.
static inline int baton_terminfo_string_of(const char *type, const char *name, int fd, char *out, int size) {
    struct term *saved = set_curterm(NULL);
    int error = 0;
    int length = -1;
    if (setupterm(type, fd, &error) == OK) {
        const char *value = tigetstr(name);
        if (value != NULL && value != (const char *)-1) {
            int n = 0;
            while (value[n] != 0) n++;
            if (n < size) {
                for (int i = 0; i <= n; i++) out[i] = value[i];
                length = n;
            }
        }
        struct term *loaded = set_curterm(saved);
        del_curterm(loaded);
    } else {
        set_curterm(saved);
    }
    return length;
}

/// The key code ncurses gives the current terminal's key capability `name` (extended names
/// such as `kLFT5`, Ctrl-Left, included), or 0 when the terminal has no such key.
static inline int baton_key_code_of(const char *name) {
    const char *value = tigetstr(name);
    if (value == NULL || value == (const char *)-1 || value[0] == 0) return 0;
    int code = key_defined(value);
    return code > 0 ? code : 0;
}

/// `KEY_F(n)`; ncurses reserves 64 function keys starting at `KEY_F0`.
static inline int baton_key_f(int n) { return KEY_F(n); }

/// One result of `wget_wch`: the status (`OK`, `KEY_CODE_YES` or `ERR`) and the value.
typedef struct {
    int status;
    wint_t value;
} baton_wide_key;

/// `wget_wch`, returning the status and the character or key code together.
static inline baton_wide_key baton_get_wch(WINDOW *window) {
    baton_wide_key result;
    wint_t value = 0;
    result.status = wget_wch(window, &value);
    result.value = value;
    return result;
}

/// Builds a complex character from up to `CCHARW_MAX` code points (one spacing
/// character followed by non-spacing ones) and writes it at row `y`, column `x`.
static inline int baton_put_wide(WINDOW *window, int y, int x, const wchar_t *codepoints,
                                 attr_t attributes, short pair) {
    cchar_t cell;
    if (setcchar(&cell, codepoints, attributes, pair, NULL) == ERR) {
        return ERR;
    }
    return mvwadd_wch(window, y, x, &cell);
}

/// Writes a whole grapheme cluster into one ncurses cell at row `y`, column `x`.
///
/// `setcchar` keeps only the first spacing character and the non-spacing ones
/// after it, so a cluster with more spacing scalars (an Indic conjunct such as
/// "स्ते", a skin tone "👍🏽", a ZWJ family "👨‍👩‍👧") would lose them. The rest of
/// the cluster, at most `CCHARW_MAX` code points in all, is copied into the
/// cell's `chars` array after `setcchar` has built it: ncurses takes the cell's
/// width from its first character and writes every code point of the cell
/// when it updates the terminal.
static inline int baton_put_cluster(WINDOW *window, int y, int x, const wchar_t *codepoints,
                                    int count, attr_t attributes, short pair) {
    cchar_t cell;
    wchar_t first[2] = { codepoints[0], 0 };
    if (count < 1 || setcchar(&cell, first, attributes, pair, NULL) == ERR) {
        return ERR;
    }
    for (int i = 1; i < count && i < CCHARW_MAX; i++) {
        cell.chars[i] = codepoints[i];
    }
    return mvwadd_wch(window, y, x, &cell);
}

/// Writes `count` printable ASCII bytes from (`y`, `x`) in one style, as `mvwaddchnstr`
/// does: straight into the window's cells, without wrapping or moving the cursor, and without
/// building a wide cell for each (the bytes are one column each everywhere). Longer runs are
/// written 256 at a time.
static inline int baton_put_ascii_run(WINDOW *window, int y, int x, const unsigned char *bytes,
                                      int count, attr_t attributes, short pair) {
    chtype cells[256];
    int result = OK;
    for (int done = 0; done < count;) {
        int n = count - done < 256 ? count - done : 256;
        for (int i = 0; i < n; i++) {
            cells[i] = (chtype)bytes[done + i] | (chtype)attributes | (chtype)COLOR_PAIR(pair);
        }
        if (mvwaddchnstr(window, y, x + done, cells, n) == ERR) {
            result = ERR;
        }
        done += n;
    }
    return result;
}

/// The terminal's string that moves the cursor to row `y`, column `x` (terminfo `cup`
/// through `tiparm`), or NULL when the terminal has none. Valid until the next `tiparm`.
static inline const char *baton_cursor_address(int y, int x) {
    const char *cup = tigetstr("cup");
    if (cup == NULL || cup == (const char *)-1) {
        return NULL;
    }
    return tiparm(cup, y, x);
}

/// `getcury` and `getcurx`: where a window's cursor is.
static inline void baton_getyx(WINDOW *window, int *y, int *x) {
    *y = getcury(window);
    *x = getcurx(window);
}

/// The most code points one ncurses cell holds.
static inline int baton_cchar_max(void) { return CCHARW_MAX; }

/// `wcwidth` from libc (declared only under _XOPEN_SOURCE, which SwiftPM drops).
extern int wcwidth(wchar_t);
static inline int baton_wcwidth(wchar_t c) { return wcwidth(c); }

/// `ioctl(fd, TIOCGWINSZ)`: 0 and the size on success, -1 when `fd` is not a terminal.
static inline int baton_window_size(int fd, int *rows, int *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) {
        return -1;
    }
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

/// `ioctl(fd, FIONREAD)`: bytes waiting to be read, or -1.
static inline int baton_bytes_available(int fd) {
    int count = 0;
    if (ioctl(fd, FIONREAD, &count) != 0) {
        return -1;
    }
    return count;
}

/// Whether the locale's character set is UTF-8 (`nl_langinfo(CODESET)`).
static inline bool baton_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL) {
        return false;
    }
    // "UTF-8" or "utf8", any case.
    const char *p = codeset;
    char normalized[8];
    int n = 0;
    while (*p && n < 7) {
        char c = *p++;
        if (c == '-' || c == '_') continue;
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        normalized[n++] = c;
    }
    normalized[n] = 0;
    return *p == 0 && n == 4 && normalized[0] == 'u' && normalized[1] == 't'
        && normalized[2] == 'f' && normalized[3] == '8';
}

/// How many colours and colour pairs the terminal has (the `COLORS` and `COLOR_PAIRS` globals).
static inline int baton_colors(void) { return COLORS; }
static inline int baton_color_pairs(void) { return COLOR_PAIRS; }

/// As `baton_put_cluster`, with a colour pair of any number `init_extended_pair` made (passed
/// to `setcchar` through its `opts`, as ncurses' extended colours take it).
static inline int baton_put_cluster_pair(WINDOW *window, int y, int x, const wchar_t *codepoints,
                                         int count, attr_t attributes, int pair) {
    cchar_t cell;
    wchar_t first[2] = { codepoints[0], 0 };
    if (count < 1 || setcchar(&cell, first, attributes, 0, &pair) == ERR) {
        return ERR;
    }
    for (int i = 1; i < count && i < CCHARW_MAX; i++) {
        cell.chars[i] = codepoints[i];
    }
    return mvwadd_wch(window, y, x, &cell);
}

/// The terminal's string that turns mouse reports off (terminfo `XM` with 0), or NULL when
/// the terminal has none. Valid until the next `tiparm`.
static inline const char *baton_mouse_off_string(void) {
    const char *xm = tigetstr("XM");
    if (xm == NULL || xm == (const char *)-1) {
        return NULL;
    }
    return tiparm(xm, 0);
}

/// Mouse support: the key code, the event masks (function-like macros in <ncurses.h>), and
/// `getmouse` as one result.
static inline int baton_key_mouse(void) { return KEY_MOUSE; }
static inline mmask_t baton_button_pressed(int button) { return NCURSES_MOUSE_MASK(button, NCURSES_BUTTON_PRESSED); }
static inline mmask_t baton_button_released(int button) { return NCURSES_MOUSE_MASK(button, NCURSES_BUTTON_RELEASED); }
static inline mmask_t baton_button_clicked(int button) { return NCURSES_MOUSE_MASK(button, NCURSES_BUTTON_CLICKED); }
static inline mmask_t baton_all_mouse_events(void) { return ALL_MOUSE_EVENTS; }
static inline mmask_t baton_report_mouse_position(void) { return REPORT_MOUSE_POSITION; }
static inline mmask_t baton_button_shift(void) { return BUTTON_SHIFT; }
static inline mmask_t baton_button_ctrl(void) { return BUTTON_CTRL; }
static inline mmask_t baton_button_alt(void) { return BUTTON_ALT; }

typedef struct {
    int ok;
    int row;
    int column;
    mmask_t state;
} baton_mouse_event;

/// `getmouse`: the event ncurses decoded for the `KEY_MOUSE` just read; `ok` 0 when none.
static inline baton_mouse_event baton_get_mouse(void) {
    MEVENT event;
    baton_mouse_event result = { 0, 0, 0, 0 };
    if (getmouse(&event) == OK) {
        result.ok = 1;
        result.row = event.y;
        result.column = event.x;
        result.state = event.bstate;
    }
    return result;
}

#include "blank_bottom.h"
