import Foundation
import Handoff
import HandoffWire

/// What one check of `baton doctor` found: in plain words, and the fix to try when something is wrong.
public struct DoctorFinding: Equatable, Sendable {
    /// How a check came out.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Nothing wrong.
        case ok
        /// Worth knowing, not known to stop Baton: the exit status stays 0.
        case warning
        /// Stops Baton here: the exit status is 1.
        case problem
        /// The check could not run (the reason is in the detail).
        case skipped
    }

    /// The check's name, e.g. "firewall".
    public var name: String
    public var status: Status
    /// What was found, one sentence.
    public var detail: String
    /// The command or step to try, when there is one.
    public var fix: String?

    public init(name: String, status: Status, detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
    }
}

/// Every finding of one `baton doctor` run, as text for a person or JSON for a script.
public struct DoctorReport: Equatable, Sendable {
    public var findings: [DoctorFinding]

    public init(findings: [DoctorFinding]) {
        self.findings = findings
    }

    /// 1 when any check found a problem, else 0 (warnings and skipped checks do not count).
    public var exitStatus: Int32 { findings.contains { $0.status == .problem } ? 1 : 0 }

    /// The fix of the first problem, in check order; without a problem, that of the first warning.
    public var firstFix: String? {
        findings.first { $0.status == .problem && $0.fix != nil }?.fix
            ?? findings.first { $0.status == .warning && $0.fix != nil }?.fix
    }

    /// The marker before a check's line: ✓ ! ✗ –, or + ! x - where the terminal may not show UTF-8.
    public static func marker(_ status: DoctorFinding.Status, unicode: Bool) -> String {
        switch status {
        case .ok: unicode ? "✓" : "+"
        case .warning: "!"
        case .problem: unicode ? "✗" : "x"
        case .skipped: unicode ? "–" : "-"
        }
    }

    /// One line per check, then the first thing to try. Each line passes through
    /// `PeerText.visible`, so text taken from the system (rule lines, names) cannot act on the terminal.
    public func text(unicode: Bool) -> String {
        var lines = findings.map { "\(Self.marker($0.status, unicode: unicode)) \($0.name): \($0.detail)" }
        if exitStatus != 0 {
            lines.append("First thing to try: \(firstFix ?? "see the lines marked \(Self.marker(.problem, unicode: unicode)) above.")")
        } else if let fix = firstFix {
            lines.append("Nothing wrong found. To check further: \(fix)")
        } else {
            lines.append("Nothing wrong found.")
        }
        return lines.map { PeerText.visible($0) }.joined(separator: "\n")
    }

    /// One JSON object: `checks` (each with `name`, `status`, `detail` and `fix`, null when
    /// there is none), `exitStatus`, and `firstFix` (null when there is none).
    public func json() -> String {
        let object: [String: Any] = [
            "checks": findings.map { finding -> [String: Any] in
                [
                    "name": finding.name, "status": finding.status.rawValue, "detail": finding.detail,
                    "fix": finding.fix ?? NSNull(),
                ]
            },
            "exitStatus": Int(exitStatus),
            "firstFix": firstFix ?? NSNull(),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
