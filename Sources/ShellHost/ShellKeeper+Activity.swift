import BatonShell
import Dispatch
import Handoff
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension ShellKeeper {
    // MARK: - The activity

    /// At most once a second: what runs in front, and in which folder; published when it changed.
    func lookAtProgram() {
        let now = center.clock.now
        guard now - lastLook >= .seconds(1) else { return }
        lastLook = now
        guard let seen = RunningProgram.inFront(of: pty.master), seen != running else { return }
        running = seen
        publish()
    }

    func publish() {
        let size = emulator.size
        activity.title = "\(running.command) in \(RunningProgram.shortFolder(running.folder)) — \(center.configuration.peer.name)"
        activity.userInfo = [
            "folder": .string(running.folder), "command": .string(running.command),
            "rows": .integer(size.rows), "columns": .integer(size.columns),
        ]
        activity.needsSave = true
    }
}

/// Chunks of the program's output read and not yet taken: the reading thread waits once
/// `limit` are waiting.
final class OutputGate: Sendable {
    static let limit = 8
    private let slots = DispatchSemaphore(value: OutputGate.limit)
    private let count = Mutex(0)

    /// The reader has a chunk: waits for room.
    func enter() {
        slots.wait()
        count.withLock { $0 += 1 }
    }

    /// A chunk was taken; returns how many still wait.
    func leave() -> Int {
        let left = count.withLock { count in
            count -= 1
            return count
        }
        slots.signal()
        return left
    }
}
