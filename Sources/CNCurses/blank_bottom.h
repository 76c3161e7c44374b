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

/// When the window's bottom-right cell is a plain blank (a space, no attribute, no colour
/// pair), writes it again as a blank with `A_PROTECT`, an attribute the caller has checked
/// this terminal is not sent (`baton_protect_is_invisible`).
///
/// Why: on every `doupdate`, ncurses looks for blank rows at the bottom of the screen that a
/// clear-to-end-of-screen could erase, taking the bottom-right cell as the blank to look for.
/// When that cell is a plain blank, it compares every cell of every blank bottom row, in the
/// screen to show and in the one shown, each refresh: on a screen that is mostly blank (a new
/// shell's prompt), most of what a refresh costs. A cell it cannot clear with ends the search
/// before it starts, and the terminal is sent the same bytes as before.
static inline void baton_mark_bottom_right(WINDOW *window) {
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
    if (text[0] != L' ' || text[1] != 0 || attributes != A_NORMAL || pair != 0) {
        return;
    }
    cchar_t marked;
    const wchar_t space[2] = { L' ', 0 };
    if (setcchar(&marked, space, A_PROTECT, 0, NULL) == ERR) {
        return;
    }
    // Writing the bottom-right cell reports ERR (the cursor cannot advance), though it is written.
    (void)mvwadd_wch(window, rows - 1, columns - 1, &marked);
}
