import BatonFiles
import FoundationEssentials
import Glibc

/// Where the programs write for people: results on standard output, and every diagnostic (a
/// hint, a warning, a note that something was only partly done, a question) on standard error.
/// Each write is one `write` of its bytes, so lines from several threads never interleave.
public enum Console {
    /// `text` and a newline on standard output.
    public static func line(_ text: String) {
        output(text + "\n")
    }

    /// `text` on standard output, as it is.
    public static func output(_ text: String) {
        Descriptor.write(text, to: STDOUT_FILENO)
    }

    /// `text` and a newline on standard error: the one writer of diagnostics.
    public static func note(_ text: String) {
        diagnostic(text + "\n")
    }

    /// `text` on standard error, as it is: a question that waits on the same line, a progress
    /// line that `\r` rewrites. What `print` left buffered for standard output goes first, so
    /// where both streams reach one file they keep their order.
    public static func diagnostic(_ text: String) {
        fflush(nil)
        Descriptor.write(text, to: STDERR_FILENO)
    }
}
