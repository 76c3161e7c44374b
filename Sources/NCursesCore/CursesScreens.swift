import CNCurses

/// The ncurses screens of every `CursesTerminal` in the process, and when they may be freed.
///
/// ncurses as Debian builds it (6.4, without its terminal driver) keeps one list of windows for the whole process, not
/// one per screen, and `delscreen` frees every window on that list: freeing the screen of one
/// terminal (a backend that shuts down) while another is open (ShellDisplay showing a session)
/// took the other's `stdscr`, `curscr` and `newscr` with it. The other terminal then read no key
/// (`wget_wch` on a null `stdscr` fails without reading, while poll keeps saying the terminal is
/// readable) and drew nothing, and what it still pointed at was freed memory.
///
/// So a terminal that is given back only retires its screen (after `endwin`); the retired screens
/// are freed together once no terminal in the process has a screen open. Guarded by
/// `CursesTerminal.lock`.
enum CursesScreens {
    nonisolated(unsafe) private static var openCount = 0
    nonisolated(unsafe) private static var retired: [OpaquePointer] = []

    /// `newterm` made a screen. Lock held.
    static func opened() {
        openCount += 1
    }

    /// A screen that is no longer used (its terminal has left curses mode): freed now when it was
    /// the last open one, together with those retired before; otherwise kept until then. Lock held.
    static func retire(_ screen: OpaquePointer) {
        openCount -= 1
        retired.append(screen)
        guard openCount == 0 else { return }
        for screen in retired {
            delscreen(screen)
        }
        retired.removeAll()
    }
}
