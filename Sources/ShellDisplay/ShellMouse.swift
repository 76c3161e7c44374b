import BatonShell
import CNCurses

/// ncurses' mouse events as `ShellInput`, and the event mask each mouse mode asks for. Pure:
/// the masks are ncurses' constants.
enum ShellMouse {
    /// What `mousemask` is given for a program's mouse mode: nothing for none, presses and
    /// releases for clicks, and every move as well for drags and moves (ncurses has no mode of
    /// its own for drags; the session's terminal emulator reports only what the program asked).
    static func mask(for mode: ShellScreen.MouseMode) -> mmask_t {
        switch mode {
        case .none: 0
        case .click: baton_all_mouse_events()
        case .drag, .move: baton_all_mouse_events() | baton_report_mouse_position()
        }
    }

    /// The inputs of one event at (`row`, `column`) whose state is `state` (`MEVENT.bstate`):
    /// a press or release of buttons 1–3, the wheel as presses of 4 (up) and 5 (down), a click
    /// (when ncurses resolved one) as a press and a release, and a move as button 0, not pressed.
    static func inputs(row: Int, column: Int, state: UInt) -> [ShellInput] {
        let state = mmask_t(state)
        var modifiers: ShellModifiers = []
        if state & baton_button_shift() != 0 { modifiers.insert(.shift) }
        if state & baton_button_alt() != 0 { modifiers.insert(.alt) }
        if state & baton_button_ctrl() != 0 { modifiers.insert(.control) }
        func event(_ button: Int, _ pressed: Bool) -> ShellInput {
            .mouse(row: row, column: column, button: button, pressed: pressed, modifiers: modifiers)
        }
        var inputs: [ShellInput] = []
        for button in 1...5 {
            if state & baton_button_pressed(Int32(button)) != 0 { inputs.append(event(button, true)) }
            if state & baton_button_clicked(Int32(button)) != 0 {
                inputs.append(event(button, true))
                if button <= 3 { inputs.append(event(button, false)) }
            }
            if state & baton_button_released(Int32(button)) != 0, button <= 3 { inputs.append(event(button, false)) }
        }
        if inputs.isEmpty, state & baton_report_mouse_position() != 0 { inputs.append(event(0, false)) }
        return inputs
    }
}
