#if os(Linux)
import Foundation
import Glibc

/// A Linux pseudo-terminal pair, so a test can set the window size the way a
/// terminal emulator does. The master side's output is drained in the background.
final class PseudoTerminal {
    let masterFD: Int32
    let slaveFD: Int32
    let output: OutputCollector

    // <asm-generic/ioctls.h>: _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int),
    // which Swift's Glibc module does not export.
    private static let unlockRequest: UInt = 0x4004_5431  // TIOCSPTLCK
    private static let numberRequest: UInt = 0x8004_5430  // TIOCGPTN

    struct Failure: Error, CustomStringConvertible {
        let step: String
        let code: Int32
        var description: String { "pseudo-terminal: \(step) failed (errno \(code))" }
    }

    init(columns: Int, rows: Int) throws {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw Failure(step: "open /dev/ptmx", code: errno) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.unlockRequest, &unlock) == 0, ioctl(master, Self.numberRequest, &number) == 0 else {
            close(master)
            throw Failure(step: "unlock", code: errno)
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw Failure(step: "open /dev/pts/\(number)", code: errno)
        }
        masterFD = master
        slaveFD = slave
        output = OutputCollector(fd: dup(master))
        setSize(columns: columns, rows: rows)
    }

    /// Sets the window size, as a terminal emulator does when its window changes.
    func setSize(columns: Int, rows: Int) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(masterFD, UInt(TIOCSWINSZ), &size)
    }

    /// Types `bytes` at the terminal.
    func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(masterFD, $0.baseAddress, $0.count) }
    }

    deinit {
        close(slaveFD)
        close(masterFD)
    }
}
#endif
