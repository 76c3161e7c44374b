import Foundation

/// `baton peer listen --json` running in a lab host: what every peer announces, as it arrives.
final class PeerListener: @unchecked Sendable {
    /// One JSON line of `baton peer listen --json` (an `appeared`, `changed` or `gone` event).
    struct Event {
        /// The whole line.
        let line: String
        let fields: [String: Any]

        var event: String { fields["event"] as? String ?? "" }
        var type: String { fields["type"] as? String ?? "" }
        var peerName: String { (fields["peer"] as? [String: Any])?["name"] as? String ?? "" }
        var userInfo: [String: Any] { fields["userInfo"] as? [String: Any] ?? [:] }

        /// An integer of `userInfo`.
        func int(_ key: String) -> Int? { (userInfo[key] as? NSNumber)?.intValue }
        /// A string of `userInfo`.
        func string(_ key: String) -> String? { userInfo[key] as? String }
        /// A boolean of `userInfo` (JSON's true or false).
        func bool(_ key: String) -> Bool? { userInfo[key] as? Bool }
    }

    private let child: ChildProcess
    private let condition = NSCondition()
    private var lines: [String] = []
    private var ended = false

    /// Its config folder, its own (the lab's shared identity in it), removed by `stop()`: a folder
    /// shared between runs could hold another identity or key, and its listener would hear nobody.
    private let config = NSTemporaryDirectory() + "baton-e2e-listener-\(UInt64.random(in: 0...UInt64(UInt32.max) << 8))"

    /// Starts listening in host `host` of `lab`, as `--name e2e-listener`.
    init(lab: Lab, host: Int, peer: [String]) throws {
        try E2E.giveSharedIdentity(config: config)
        let pipe = try PipeDescriptors()
        defer { close(pipe.write) }
        do {
            child = try ChildProcess(
                lab.command(host: host, peer + ["listen", "--json", "--name", "e2e-listener"]),
                environment: [
                    "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "BATON_KEY": E2E.key, "LANG": "C.UTF-8",
                    "XDG_CONFIG_HOME": config,
                ],
                output: pipe.write, error: pipe.write)
        } catch {
            close(pipe.read)
            throw error
        }
        let descriptor = pipe.read
        Thread { [self] in
            read(descriptor)
            close(descriptor)
        }.start()
    }

    private func read(_ descriptor: Int32) {
        var splitter = LineSplitter()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            let complete = splitter.append(buffer[0..<count])
            guard !complete.isEmpty else { continue }
            condition.lock()
            lines += complete
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// How many lines arrived so far; pass it as `since` to look only at later ones.
    var mark: Int {
        condition.lock()
        defer { condition.unlock() }
        return lines.count
    }

    /// Waits until a line from index `since` on is an event for which `matches` holds; returns it.
    @discardableResult
    func waitForEvent(
        _ description: String, since: Int = 0, timeout: Double = 10, where matches: (Event) -> Bool
    ) throws -> Event {
        let deadline = Date().addingTimeInterval(timeout)
        E2E.trace("listening for \(description)")
        defer { E2E.trace("done listening for \(description)") }
        var index = since
        condition.lock()
        defer { condition.unlock() }
        while true {
            while index < lines.count {
                let line = lines[index]
                index += 1
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["event"] as? String != "statistics"
                {
                    let event = Event(line: line, fields: object)
                    if matches(event) { return event }
                }
            }
            if ended || !condition.wait(until: deadline) {
                if index < lines.count { continue }
                let seen = lines.suffix(12).joined(separator: "\n")
                throw E2EError.timedOut(
                    condition: "the listener to hear \(description)" + (ended ? " (the listener ended)" : ""),
                    seconds: timeout, lastSeen: seen)
            }
        }
    }

    /// Everything it printed so far, for messages.
    var transcript: String {
        condition.lock()
        defer { condition.unlock() }
        return lines.joined(separator: "\n")
    }

    /// Stops the listener (SIGTERM, then SIGKILL if it has not ended within 3 s). Safe to call again.
    func stop() {
        child.stop()
        try? FileManager.default.removeItem(atPath: config)
    }
}
