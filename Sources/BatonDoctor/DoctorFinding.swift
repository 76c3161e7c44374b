import FoundationEssentials
import Handoff
import HandoffWire

/// What one check of `baton doctor` found: in plain words, and the fix to try when something is wrong.
package struct DoctorFinding: Equatable, Sendable {
    /// How a check came out.
    package enum Status: String, Sendable, Codable, CaseIterable {
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
    package var name: String
    package var status: Status
    /// What was found, one sentence.
    package var detail: String
    /// The command or step to try, when there is one.
    package var fix: String?

    package init(name: String, status: Status, detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
    }
}

/// Every finding of one `baton doctor` run, as text for a person or JSON for a script.
package struct DoctorReport: Equatable, Sendable {
    package var findings: [DoctorFinding]

    package init(findings: [DoctorFinding]) {
        self.findings = findings
    }

    /// 1 when any check found a problem, else 0 (warnings and skipped checks do not count).
    package var exitStatus: Int32 { findings.contains { $0.status == .problem } ? 1 : 0 }

    /// The fix of the first problem, in check order; without a problem, that of the first warning.
    package var firstFix: String? {
        findings.first { $0.status == .problem && $0.fix != nil }?.fix
            ?? findings.first { $0.status == .warning && $0.fix != nil }?.fix
    }

    /// The marker before a check's line: ✓ ! ✗ –, or + ! x - where the terminal may not show UTF-8.
    package static func marker(_ status: DoctorFinding.Status, unicode: Bool) -> String {
        switch status {
        case .ok: unicode ? "✓" : "+"
        case .warning: "!"
        case .problem: unicode ? "✗" : "x"
        case .skipped: unicode ? "–" : "-"
        }
    }

    /// One line per check, then the first thing to try. Each line passes through
    /// `PeerText.visible`, so text taken from the system (rule lines, names) cannot act on the terminal.
    package func text(unicode: Bool) -> String {
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
    package func json() -> String {
        let report = JSONReport(
            checks: findings.map { JSONReport.Check(name: $0.name, status: $0.status.rawValue, detail: $0.detail, fix: $0.fix) },
            exitStatus: Int(exitStatus), firstFix: firstFix)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(report)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The report as `json()` writes it: a missing fix is written as null, not left out.
    private struct JSONReport: Encodable {
        struct Check: Encodable {
            let name: String, status: String, detail: String, fix: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try container.encode(status, forKey: .status)
                try container.encode(detail, forKey: .detail)
                try container.encode(fix, forKey: .fix)
            }

            enum CodingKeys: String, CodingKey { case name, status, detail, fix }
        }

        let checks: [Check]
        let exitStatus: Int
        let firstFix: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(checks, forKey: .checks)
            try container.encode(exitStatus, forKey: .exitStatus)
            try container.encode(firstFix, forKey: .firstFix)
        }

        enum CodingKeys: String, CodingKey { case checks, exitStatus, firstFix }
    }
}
