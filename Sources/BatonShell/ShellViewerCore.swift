/// A terminal's side of a shell session (docs/PROTOCOL.md section 20), without I/O: what it
/// shows, what the keys typed become, and when it leaves. Its runner feeds it the keeper's
/// messages and the terminal's input, and carries out the actions it returns.
///
/// Driving, every key goes to the program but Ctrl-], which starts a command: `d` then leaves
/// the session running, Ctrl-] again sends Ctrl-]. Following, nothing typed reaches the
/// program: `t` asks to drive, `q` leaves.
public struct ShellViewerCore: Sendable {
    public enum Action: Hashable, Sendable {
        case send(ShellMessage)
        /// Draw the screen, with a status line over the last row when `status` is not nil.
        case show(ShellScreen, status: String?)
        case leave(Ending)
    }

    /// Why the terminal left.
    public enum Ending: Hashable, Sendable {
        /// Its user left; the program goes on.
        case detached
        /// The program ended with this status.
        case ended(status: Int)
        /// The keeper would not let it drive.
        case refused(String)
        /// What came from the keeper did not fit, or it closed the connection.
        case broken(String)
        /// The link dropped (nothing heard for a while, the connection reset): it may come back.
        case lost(String)
    }

    public let role: ShellMessage.Role
    public let name: String
    /// The keeper's machine, as its activity names it.
    public let keeperName: String
    public private(set) var screen: ShellScreen?
    public private(set) var drives = false
    public private(set) var driver = ""
    private(set) var rows: Int
    private(set) var columns: Int
    /// The machine whose question this terminal's user is asked.
    private(set) var asker: String?
    /// Ctrl-] was typed: the next key is a command.
    private(set) var commandPending = false
    /// A line shown until the next key.
    private(set) var notice: String?
    /// Whether it has driven since it joined.
    private(set) var drivenOnce = false
    /// `take` was sent and not answered yet.
    private(set) var taking = false
    /// Input typed before the keeper let this terminal drive (at hello, or after `take`); sent when it does.
    private(set) var held: [ShellInput] = []
    /// The most inputs held: a burst of typing, not a flood.
    static let heldLimit = 4096

    /// The key that starts a command while driving: Ctrl-].
    public static let commandKey = ShellInput.text("]", modifiers: .control)

    public init(role: ShellMessage.Role, name: String, keeperName: String, rows: Int, columns: Int) {
        self.role = role
        self.name = name
        self.keeperName = keeperName
        self.rows = rows
        self.columns = columns
    }

    /// The first message.
    public var hello: ShellMessage { .hello(role: role, peerName: name, rows: rows, columns: columns) }

    /// The status line as it stands: a question, a notice, the command prompt, or what a
    /// follower is told; nil while driving with nothing to say.
    public var status: String? {
        if let asker { return "\(asker) asks to take this session: y/N" }
        if commandPending { return "Ctrl-] then: d leaves the session running, Ctrl-] types Ctrl-]" }
        if let notice { return notice }
        guard !drives else { return nil }
        if isWaiting {
            return driver.isEmpty ? "Asking for the session…  Ctrl-] d leaves" : "Asking \(driver) for the session…  Ctrl-] d leaves"
        }
        let who = driver.isEmpty ? "nobody drives it now" : "\(driver) drives"
        return "Following the session on \(keeperName) (\(who)): t takes it, q leaves" + cropping
    }

    /// What a follower says when its terminal is smaller than the session: the screen is shown
    /// from its top left, the status line taking the last row.
    private var cropping: String {
        guard let screen, screen.rowCount > rows - 1 || screen.columns > columns else { return "" }
        return " · cropped: \(min(columns, screen.columns))×\(min(rows - 1, screen.rowCount)) of \(screen.columns)×\(screen.rowCount)"
    }

    // MARK: - From the keeper

    public mutating func receive(_ message: ShellMessage) -> [Action] {
        switch message {
        case .screen(let update):
            do {
                screen = try update.applied(to: screen)
            } catch {
                return [.leave(.broken("a screen update did not fit what this terminal shows"))]
            }
            return [show, .send(.shown(revision: update.revision))]
        case .role(let drives, let driver):
            let wasDriving = self.drives
            self.drives = drives
            self.driver = driver
            let flush = drives && (!drivenOnce || taking)
            if drives { taking = false }
            if drives { drivenOnce = true }
            if !drives { asker = nil }
            if wasDriving != drives { notice = nil }
            var actions: [Action] = []
            // The program takes this terminal's size when it starts to drive.
            if drives, !wasDriving { actions.append(.send(.resize(rows: rows, columns: columns))) }
            // Keys typed while the answer was on its way are the program's.
            if flush { actions += held.map { .send(.input($0)) } }
            held = []
            return actions + (screen == nil ? [] : [show])
        case .ask(let peerName):
            guard drives else { return [.send(.answer(allow: false))] }
            asker = peerName
            return screen == nil ? [] : [show]
        case .withdrawn:
            asker = nil
            return screen == nil ? [] : [show]
        case .refused(let reason):
            held = []
            taking = false
            // One that asked to drive at hello and never did leaves; one that follows, or drove
            // before, stays and says why.
            guard role == .follow || drivenOnce else { return [.leave(.refused(reason))] }
            notice = "Not taken: \(reason)"
            return screen == nil ? [] : [show]
        case .ended(let status):
            return [.leave(.ended(status: status))]
        case .hello, .input, .resize, .take, .answer, .shown:
            return [.leave(.broken("the keeper sent what only a terminal sends"))]
        }
    }


    // MARK: - From the terminal

    public mutating func input(_ input: ShellInput) -> [Action] {
        if asker != nil { return answer(input) }
        let hadNotice = notice != nil
        notice = nil
        let waiting = isWaiting
        if commandPending {
            commandPending = false
            if input == Self.commandKey, drives { return [.send(.input(input)), show] }
            if case .text("d", []) = input { return [.leave(.detached)] }
            return [show]
        }
        if input == Self.commandKey, drives || waiting {
            commandPending = true
            return [show]
        }
        // Asked to drive and not answered yet: what is typed waits for the answer.
        if waiting {
            if held.count < Self.heldLimit { held.append(input) }
            return hadNotice ? [show] : []
        }
        if drives { return [.send(.input(input))] + (hadNotice ? [show] : []) }
        switch input {
        case .text("t", []), .text("T", []):
            taking = true
            return [.send(.take), show]
        case .text("q", []), .text("Q", []): return [.leave(.detached)]
        default:
            // Nothing typed here reaches the program.
            notice = "This terminal follows: nothing typed here reaches the program. t takes the session, q leaves."
            return screen == nil ? [] : [show]
        }
    }

    /// Whether it asked to drive (at hello, or with `take`) and has no answer yet.
    private var isWaiting: Bool { !drives && (role == .drive && !drivenOnce || taking) }

    /// The terminal's size changed.
    public mutating func resized(rows: Int, columns: Int) -> [Action] {
        self.rows = rows
        self.columns = columns
        return (drives ? [.send(.resize(rows: rows, columns: columns))] : []) + (screen == nil ? [] : [show])
    }

    private mutating func answer(_ input: ShellInput) -> [Action] {
        let allow: Bool
        switch input {
        case .text("y", []), .text("Y", []): allow = true
        case .text("n", []), .text("N", []), .key(.enter, _), .key(.escape, _): allow = false
        default: return []
        }
        asker = nil
        return [.send(.answer(allow: allow)), show]
    }

    private var show: Action {
        .show(screen ?? ShellScreen(rows: rows, columns: columns), status: status)
    }
}
