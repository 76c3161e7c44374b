import Foundation
import Handoff

/// Reads and writes the editor's files; writes are atomic (temporary file, fsync, rename).
public struct FileStore: Sendable {
    /// What a save did.
    public enum Outcome: Equatable, Sendable {
        case saved
        /// The file exists with other contents and the caller did not say to replace it.
        case needsConfirmation
    }

    /// Why a file could not be read or written.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init() {}

    /// The text of a file, or nil when there is none.
    public func read(path: String) throws(Failure) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let text = String(data: data, encoding: .utf8) else {
                throw Failure(description: "\(path) is not UTF-8 text; Baton edits UTF-8 text only.")
            }
            return text
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "Cannot read \(path): \(Self.reason(error)).")
        }
    }

    /// Writes `text` to `path` atomically (`AtomicFile`): a replaced file keeps its mode, a
    /// new one gets 0644. Unless `replaceExisting`, an existing file with other contents is
    /// left alone and `.needsConfirmation` returned.
    public func save(path: String, text: String, replaceExisting: Bool) throws(Failure) -> Outcome {
        let bytes = Array(text.utf8)
        if !replaceExisting, let existing = FileManager.default.contents(atPath: path), Array(existing) != bytes {
            return .needsConfirmation
        }
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw Failure(description: "Cannot save \(path): \(error.reason).")
        }
        return .saved
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
