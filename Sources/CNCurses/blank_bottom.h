#pragma once

// Included by shim.h, after <ncurses.h>.

#include <string.h>

/// Whether `A_PROTECT` changes nothing this terminal is sent: it has no `prot`, and its `sgr`
/// (when it has one) writes the same bytes with the protect parameter on as with it off.
/// Call with the screen set.
static inline bool baton_protect_is_invisible(void) {
    const char *prot = tigetstr("prot");
    if (prot != NULL && prot != (const char *)-1) {
        return false;
    }
    const char *sgr = tigetstr("sgr");
    if (sgr == NULL || sgr == (const char *)-1) {
        return true;
    }
    char plain[256];
    const char *off = tiparm(sgr, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    if (off == NULL || strlen(off) >= sizeof plain) {
        return false;
    }
    strcpy(plain, off);
    const char *on = tiparm(sgr, 0, 0, 0, 0, 0, 0, 0, 1, 0);
    return on != NULL && strcmp(plain, on) == 0;
}

/// In `window`, a blank bottom-right cell without attributes becomes one with `A_PROTECT`
/// (`marked`), or the other way round; anything else in the cell is left alone.
static inline void baton_set_bottom_right(WINDOW *window, bool marked) {
    int rows, columns;
    getmaxyx(window, rows, columns);
    if (rows < 1 || columns < 1) {
        return;
    }
    cchar_t cell;
    if (mvwin_wch(window, rows - 1, columns - 1, &cell) == ERR) {
        return;
    }
    wchar_t text[CCHARW_MAX + 1] = { 0 };
    attr_t attributes = 0;
    short shortPair = 0;
    int pair = 0;
    if (getcchar(&cell, text, &attributes, &shortPair, &pair) == ERR) {
        return;
    }
    attr_t from = marked ? A_NORMAL : A_PROTECT;
    if (text[0] != L' ' || text[1] != 0 || attributes != from || pair != 0) {
        return;
    }
    cchar_t replaced;
    const wchar_t space[2] = { L' ', 0 };
    if (setcchar(&replaced, space, marked ? A_PROTECT : A_NORMAL, 0, NULL) == ERR) {
        return;
    }
    // Writing the bottom-right cell reports ERR (the cursor cannot advance), though it is written.
    (void)mvwadd_wch(window, rows - 1, columns - 1, &replaced);
}

/// Marks the bottom-right cell of `window` and of the screen ncurses believes the terminal
/// shows (`curscr`) with `A_PROTECT` while it is a plain blank (`marked`), or takes the mark
/// off. The caller has checked that this terminal is sent nothing for `A_PROTECT`
/// (`baton_protect_is_invisible`), so a blank with it and one without look alike: in `curscr`
/// the one stands for the other, and ncurses sends nothing for the mark.
///
/// Why: on every `doupdate`, ncurses looks for blank rows at the bottom of the screen that a
/// clear-to-end-of-screen could erase, taking the bottom-right cell as the blank to look for.
/// When that cell is a plain blank, it compares every cell of every blank bottom row, in the
/// screen to show and in the one shown, each refresh: on a screen that is mostly blank (a new
/// shell's prompt), most of what a refresh costs. A cell it cannot clear with ends the search
/// before it starts. Mark only while the whole bottom row is blank on the terminal and is to
/// stay so: a marked cell is one ncurses cannot clear with, so a row it had to blank would be
/// written out space by space, which a terminal keeps as written cells where the program it
/// shows would have left cleared ones.
static inline void baton_mark_bottom_right(WINDOW *window, bool marked) {
    baton_set_bottom_right(window, marked);
    // Where ncurses believes the terminal's cursor is stays where it was.
    int y = getcury(curscr), x = getcurx(curscr);
    baton_set_bottom_right(curscr, marked);
    wmove(curscr, y, x);
}
