import BatonShell
import Handoff
#if canImport(Glibc)
import Glibc
#endif

extension ShellKeeper {
    // MARK: - The activity

    func publish() {
        activity.title = "\(running.command) in \(RunningProgram.shortFolder(running.folder)) — \(center.configuration.peer.name)"
        activity.userInfo = [
            "folder": .string(running.folder), "command": .string(running.command),
            "rows": .integer(size.rows), "columns": .integer(size.columns),
        ]
        activity.needsSave = true
    }
}
