import Testing
@testable import Handoff
@testable import HandoffWire

/// What a failed fetch of a large record says: a state stream that never answered is named by
/// its TCP port, the one to open; and no sentence ends in two periods.
@Suite("Fetch failures in words")
struct FetchFailureTextTests {
    @Test("A stream that never brought a byte: the port to open, on which host")
    func namesThePort() {
        let failure = StreamFailure.gaveUp(
            connections: 6, received: 0, size: 2_306_867, lastReason: "no connection to 10.77.0.11:41234 within 2 s")
        let error = ActivityCenter.fetchFailure(failure, peer: "alice@a", host: "10.77.0.11", port: 41_234)
        #expect(error.description == "Could not fetch the activity from alice@a: its state stream, TCP port 41234 on 10.77.0.11, "
            + "did not answer (6 connections in a row brought no data; last: no connection to 10.77.0.11:41234 within 2 s). "
            + "If it still runs, open TCP port 41234 to that machine (e.g. `sudo ufw allow 41234/tcp` there), "
            + "or start baton there with `--stream-port PORT` and open that port. Nothing was restored.")
    }

    @Test("Other failures keep their own sentence, ended once")
    func endedOnce() {
        let stalled = StreamFailure.gaveUp(connections: 6, received: 4096, size: 2_306_867, lastReason: "no data for 3 s")
        let error = ActivityCenter.fetchFailure(stalled, peer: "alice@a", host: "10.77.0.11", port: 41_234)
        #expect(error.description.hasSuffix("TCP is not blocked between the machines. Nothing was restored."))
        #expect(!error.description.contains(".."))
        // Through a relay there is no port to open.
        let relayed = ActivityCenter.fetchFailure(
            .gaveUp(connections: 6, received: 0, size: 10, lastReason: "x"), peer: "a", host: "relay:0123", port: 1)
        #expect(!relayed.description.contains("TCP port"))
        #expect(!relayed.description.contains(".."))
        #expect(ActivityCenter.fetchFailure(.cancelled, peer: "a", host: "h", port: 1) == .cancelled)
        #expect(HandoffError.transferFailed(peer: "a", reason: "the connection was reset").description
            == "Could not fetch the activity from a: the connection was reset. Nothing was restored.")
    }
}
