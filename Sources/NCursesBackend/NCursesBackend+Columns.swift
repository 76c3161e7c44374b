import CNCurses

extension NCursesBackend {
    /// The width of the terminal on `fd` in columns, nil when `fd` is not a terminal: for
    /// output written before the UI starts, such as `baton --continue-activity`'s progress
    /// line on stderr.
    public static func columns(of fd: Int32) -> Int? {
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard baton_window_size(fd, &rows, &columns) == 0, columns > 0 else { return nil }
        return Int(columns)
    }
}
