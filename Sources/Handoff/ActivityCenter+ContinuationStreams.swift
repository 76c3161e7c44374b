import FoundationEssentials
import HandoffWire

/// Continuation streams (docs/PROTOCOL.md section 10): opening one to a nearby activity's
/// source, and taking those that listed devices open to this program's activities.
extension ActivityCenter {
    /// Opens a continuation stream to `entry`'s source: over TCP to its `continuationPort`, or
    /// through the relay when it was heard there. Works whether or not this program continued it.
    ///
    /// A connection that ends before the answer to its OPEN is opened again, after 100 ms and
    /// then 200 ms (docs/PROTOCOL.md section 10, "Opening"): on a slow path the source's 1 s for
    /// the OPEN may have passed.
    public func openContinuationStream(to entry: NearbyActivity) async throws(HandoffError) -> ContinuationStream {
        var pause = Duration.milliseconds(100)
        for _ in 1..<Self.streamOpenAttempts {
            switch await openContinuationStreamOnce(to: entry) {
            case .success(let stream): return stream
            case .failure(let failure) where !failure.mayOpenAgain: throw failure.error
            case .failure:
                do { try await clock.sleep(until: clock.now + pause) } catch { throw .cancelled }
                pause *= 2
            }
        }
        return try await openContinuationStreamOnce(to: entry).mapError(\.error).get()
    }

    /// Connections a continuation stream is opened on, at most, when they end before the answer.
    static let streamOpenAttempts = 3

    /// Why one connection brought no stream, and whether it ended before the answer came.
    struct OpeningFailure: Error {
        let error: HandoffError
        var mayOpenAgain = false
    }

    /// One connection, its handshake and the answer to its OPEN.
    private func openContinuationStreamOnce(to entry: NearbyActivity) async -> Result<ContinuationStream, OpeningFailure> {
        let started = clock.now
        let stream: ContinuationStream
        do throws(HandoffError) {
            stream = try await connectContinuationStream(to: entry)
        } catch {
            return .failure(OpeningFailure(error: error))
        }
        guard let failure = await stream.awaitOpened() else { return .success(stream) }
        // Ended before the answer's 5 s ran out (since before the connect, so never after them).
        var ended = false
        if case .lost = failure { ended = clock.now - started < ContinuationStreamLimits.answerLimit }
        return .failure(OpeningFailure(error: .continuationStream(peer: entry.record.peer.name, failure), mayOpenAgain: ended))
    }

    /// Connects and runs the handshake; the stream's OPEN is written, its answer not yet read.
    private func connectContinuationStream(to entry: NearbyActivity) async throws(HandoffError) -> ContinuationStream {
        let record = entry.record
        let fail = { (reason: ContinuationStreamFailure) in HandoffError.continuationStream(peer: record.peer.name, reason) }
        guard let port = record.continuationPort else { throw fail(.notSupported) }
        guard let stream = stateStream else { throw fail(.unreachable("this program runs without the state stream")) }
        guard let host = entry.sourceHost else { throw fail(.unreachable("its network address is unknown")) }
        guard let device = membership.device(for: entry.senderID.tag) else { throw fail(.notListed) }
        let identity = membership.streamIdentity(senderID: senderID)
        let source = StreamSource(senderID: entry.senderID, identity: device)
        let opener = ContinuationStreamMachine(role: .opener, now: clock.now)
        var handshake = ContinuationClientHandshake(
            identity: identity, groupKey: membership.keys.current, source: source, open: opener.openFrame(activityID: record.activityID))
        let connection: any StreamConnection
        do {
            connection = try await stream.dialer.connect(host: host, port: port)
        } catch {
            throw fail(.unreachable("\(error)"))
        }
        var link: ContinuationLink?
        do {
            try await connection.write(handshake.start())
            while link == nil {
                guard let bytes = try await connection.read() else {
                    await connection.close()
                    throw fail(.notListed)
                }
                for output in handshake.receive(bytes) {
                    switch output {
                    case .write(let bytes): try await connection.write(bytes)
                    case .established(let established): link = established
                    case .failed(let failure):
                        await connection.close()
                        throw fail(failure == .authenticationFailed ? .brokenRule("\(failure)") : .unreachable("\(failure)"))
                    }
                }
            }
        } catch let error as HandoffError {
            throw error
        } catch {
            await connection.close()
            throw fail(.unreachable("\(error)"))
        }
        let peer = ContinuationStream.Peer(senderID: entry.senderID, device: device, name: record.peer.name)
        return ContinuationStream(
            role: .opener, activityID: record.activityID, peer: peer, link: link!, pipe: connection, clock: clock)
    }

    /// Takes an OPEN a server handed over: accepted, and given to the activity's delegate, when
    /// this program still holds the activity and it supports streams; else refused with the reason.
    func takeContinuationOpening(_ opening: ContinuationOpening, pipe: any StreamPipe) {
        let tag = opening.link.peerSenderID.tag
        // As this device's list names the opener; its tag's hex only if the list forgot it meanwhile.
        let name = membership.roster.name(of: opening.link.peerDevice.deviceID.bytes)
            ?? PlainText.hex(opening.link.peerSenderID.bytes.prefix(8))
        let peer = ContinuationStream.Peer(senderID: opening.link.peerSenderID, device: opening.link.peerDevice, name: name)
        let stream = ContinuationStream(
            role: .acceptor, activityID: opening.activityID, peer: peer, link: opening.link, pipe: pipe, clock: clock)
        let now = clock.now
        guard membership.device(for: tag) != nil else {
            return stream.perform { $0.machine.refuse(.notHeld, "this device is no longer listed", now: now) }
        }
        guard let activity = heldActivity(opening.activityID) else {
            return stream.perform { $0.machine.refuse(.notHeld, "this activity is no longer held", now: now) }
        }
        guard activity.supportsContinuationStreams, let delegate = activity.delegate else {
            return stream.perform { $0.machine.refuse(.notSupported, "this activity takes no continuation streams", now: now) }
        }
        guard openStreams.count < ContinuationStreamLimits.maximumStreams else {
            return stream.perform { $0.machine.refuse(.busy, "too many continuation streams", now: now) }
        }
        openStreams.add(stream)
        stream.perform { $0.machine.accept(now: now) }
        delegate.userActivity(activity, didReceive: stream)
    }

    /// The activity `id` when this program holds it: its current one, or the last one it
    /// published and has not withdrawn.
    func heldActivity(_ id: String) -> UserActivity? {
        if let current = currentActivity, current.activityID == id, !current.isInvalidated { return current }
        if let last = lastPublished, last.activityID == id, let activity = recentActivity(withID: id), !activity.isInvalidated {
            return activity
        }
        return nil
    }

    /// Opens the door of the shelf's servers to this center.
    func openContinuationDoor() {
        stateStream?.shelf.continuationDoor.setHandler { [weak self] opening, pipe in
            Task { @MainActor in
                guard let self else { return await pipe.close() }
                self.takeContinuationOpening(opening, pipe: pipe)
            }
        }
    }
}

extension UserActivity {
    /// Opens a continuation stream to the source of this activity, which `continueActivity` returned.
    public func continuationStream() async throws(HandoffError) -> ContinuationStream {
        guard let center, let source = continuedFrom else {
            throw .continuationStream(peer: peer?.name ?? "its source", .unreachable("this activity was not continued from a source"))
        }
        return try await center.openContinuationStream(to: source)
    }
}
