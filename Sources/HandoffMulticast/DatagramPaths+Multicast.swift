import Handoff
import NIOCore
import NIOPosix

/// Joining the group, the multicast socket, watching the interfaces, and the status they add up to.
extension DatagramPaths {
    // MARK: Multicast

    /// Joins the group on the main socket and opens the multicast socket, on the interface as
    /// chosen now. Never fails: what goes wrong becomes `multicastProblem`.
    func setUpMulticast() -> EventLoopFuture<Void> {
        guard !isClosing, let main, let choice else {
            closeSender()
            return loop.makeSucceededVoidFuture()
        }
        guard let multicast = main as? any MulticastChannel else {
            multicastUnavailable("the socket offers no multicast options")
            return loop.makeSucceededVoidFuture()
        }
        let leave: EventLoopFuture<Void> =
            isJoined
            ? multicast.leaveGroup(group, device: joinedDevice).flatMapErrorWithEventLoop { _, loop in
                loop.makeSucceededVoidFuture()
            }
            : loop.makeSucceededVoidFuture()
        return leave.flatMap {
            self.isJoined = false
            return multicast.joinGroup(self.group, device: choice.device)
        }
        .flatMapError { error in
            // Already a member on this interface (its address changed, the interface did not): fine.
            if let io = error as? IOError, io.errnoCode == EADDRINUSE { return self.loop.makeSucceededVoidFuture() }
            return self.loop.makeFailedFuture(error)
        }
        .flatMap {
            self.isJoined = true
            self.joinedDevice = choice.device
            return self.openSender(choice)
        }
        .flatMapErrorWithEventLoop { error, loop in
            self.multicastUnavailable(Self.joinReason(error, interface: choice.name, named: choice.device != nil))
            return loop.makeSucceededVoidFuture()
        }
    }

    func openSender(_ choice: InterfaceChoice) -> EventLoopFuture<Void> {
        closeSender()
        return bindMain().flatMap { channel in
            guard let options = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                return self.loop.makeFailedFuture(ChannelError.operationUnsupported)
            }
            var steps = [
                options.setIPMulticastTTL(CUnsignedChar(self.configuration.ttl)),
                options.setIPMulticastLoop(self.configuration.loopback ? 1 : 0),
            ]
            if let address = choice.address { steps.append(options.setIPMulticastIF(address)) }
            return EventLoopFuture.andAllSucceed(steps, on: self.loop)
                .flatMapError { error in
                    channel.close(promise: nil)
                    return self.loop.makeFailedFuture(error)
                }
                .map {
                    self.senderGeneration += 1
                    let generation = self.senderGeneration
                    self.multicastSender = channel
                    channel.closeFuture.whenComplete { _ in self.senderClosed(generation: generation) }
                    if !self.problemFromSend { self.multicastProblem = nil }
                }
        }
    }

    func closeSender() {
        senderGeneration += 1
        multicastSender?.close(promise: nil)
        multicastSender = nil
    }

    /// A send error closed the multicast socket: multicast is unavailable until a retry works.
    func senderClosed(generation: Int) {
        guard !isClosing, generation == senderGeneration else { return }
        multicastSender = nil
        multicastUnavailable(lastSendFailure ?? "the multicast socket closed", bySend: true)
    }

    func multicastUnavailable(_ reason: String, bySend: Bool = false) {
        multicastProblem = reason
        problemFromSend = bySend
        nextRetry = .now() + retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetry)
        scheduleLook(at: nextLookDeadline())
        publish()
    }

    // MARK: Watching the interfaces

    /// A look at the interfaces, when a change was heard, a retry or a name's resolution is due,
    /// or the slow look's time came: when they changed, or a retry is due, set multicast up again.
    func watch() {
        look = nil
        lookAt = .distantFuture
        guard !isClosing else { return }
        defer { scheduleLook(at: nextLookDeadline()) }
        if events == nil { subscribe() }
        resolveUnresolvedIfDue()
        let now = NIODeadline.now()
        lastLook = now
        looks += 1
        let current = Self.interfaceSignature(group: group)
        let changed = current != signature
        signature = current
        let retry = multicastProblem != nil && now >= nextRetry
        guard changed || retry else { return }
        if changed {
            // A new address or route: try at once, and soon again if that fails.
            retryDelay = Self.firstRetry
            problemFromSend = false
        }
        nextRetry = now + retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetry)
        do {
            choice = try InterfaceChoice.resolve(named: configuration.interface, group: group)
        } catch {
            choice = nil
            closeSender()
            multicastUnavailable(Self.shortReason(error))
            return
        }
        guard main != nil else { return }  // reopening: it sets multicast up when bound
        setUpMulticast().whenComplete { _ in self.publish() }
    }

    /// When the next look is due: every second without the kernel's word, `slowLook` with it,
    /// and sooner for a retry or a name to resolve.
    func nextLookDeadline() -> NIODeadline {
        let now = NIODeadline.now()
        var next = now + (events == nil ? Self.watchInterval : Self.slowLook)
        if multicastProblem != nil { next = min(next, nextRetry) }
        if !unresolved.isEmpty { next = min(next, nextResolve) }
        return max(next, now + Self.settle)
    }

    /// Makes the next look due at `deadline` unless one is due sooner.
    func scheduleLook(at deadline: NIODeadline) {
        guard !isClosing, deadline < lookAt else { return }
        look?.cancel()
        lookAt = deadline
        look = loop.scheduleTask(deadline: deadline) { self.watch() }
    }

    /// The kernel said a link, an address or a route changed: look once its burst is over.
    func interfacesChanged() {
        scheduleLook(at: max(.now() + Self.settle, lastLook + Self.eventSpacing))
    }

    /// Subscribes to the kernel's word on interface changes. Where it cannot be had the looks
    /// stay a second apart, and each tries again; a subscription that closes (a read error, as
    /// an overrun's) makes the next look come soon, since what it missed is unknown. The future
    /// completes, never failing, once the subscription is made or refused.
    @discardableResult
    func subscribe() -> EventLoopFuture<Void> {
        guard !isClosing, events == nil, !subscribing else { return loop.makeSucceededVoidFuture() }
        subscribing = true
        return InterfaceEvents.subscribe(on: loop) { self.interfacesChanged() }
            .map { channel in
                self.subscribing = false
                guard !self.isClosing else {
                    channel.close(promise: nil)
                    return
                }
                self.events = channel
                channel.closeFuture.whenComplete { _ in
                    guard self.events === channel else { return }  // closed by `close`
                    self.events = nil
                    self.interfacesChanged()
                }
            }
            .recover { _ in self.subscribing = false }  // refused: looked at every second
    }

    // MARK: Status

    /// Tells the handler when the status changed.
    func publish() {
        let paths = TransportStatus(paths: [
            .init(
                kind: .multicast, state: multicastProblem.map { .down(reason: $0) } ?? .up,
                detail: "\(configuration.group):\(configuration.port) on \(choice?.name ?? configuration.interface ?? "the default interface")"
                    + (choice?.addressText.map { " (\($0))" } ?? "")
            ),
            .init(
                kind: .unicast, state: mainProblem.map { .down(reason: $0) } ?? .up,
                detail: Self.unicastDetail(listed: listed.count, learnt: learned.count)),
        ])
        state.update(paths, interfaceName: choice?.name)?.statusChanged(paths)
    }

    static func unicastDetail(listed: Int, learnt: Int) -> String {
        func count(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word) peer" : "\(n) \(word) peers" }
        return "to \(count(listed, "listed")), \(count(learnt, "learnt"))"
    }
}
