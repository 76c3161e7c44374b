import HandoffWire

/// Carrying out what the machine asks: under the lock, frames are sealed and queued for the
/// writer in order and waiters chosen; outside it, the waiters resume.
extension ContinuationStream {
    @discardableResult
    func perform<T>(_ body: (inout Core) -> ([ContinuationStreamMachine.Action], T)) -> T {
        var value: T?
        perform { core -> [ContinuationStreamMachine.Action] in
            let (actions, result) = body(&core)
            value = result
            return actions
        }
        return value!
    }

    /// The work of every `perform`, not generic: one copy of it in the program (a copy for each
    /// `T` was 6.7 KB, four of them).
    func perform(_ body: (inout Core) -> [ContinuationStreamMachine.Action]) {
        var wake: [() -> Void] = []
        let push = core.withLock { core in
            var actions = body(&core)
            var index = 0
            while index < actions.count {
                defer { index += 1 }
                switch actions[index] {
                case .write(let plaintext):
                    // Posted straight to the connection when it can be (under the lock: in the
                    // order sealed), else handed to the writer task.
                    let sealed = core.sealer.seal(plaintext)
                    if !core.posts || !pipe.post(sealed) {
                        core.posts = false
                        outgoingYield(sealed)
                    }
                case .opened:
                    if let opened = core.opened { wake.append { opened.resume(returning: nil) } }
                    core.opened = nil
                case .messageReady:
                    if core.pusher != nil {
                        actions += Self.takeForPusher(&core, now: clock.now)
                        break
                    }
                    guard let reader = core.reader else { break }
                    let (message, more) = core.machine.take(now: clock.now)
                    guard let message else { break }
                    core.reader = nil
                    actions += more
                    wake.append { reader.resume(returning: .success(message)) }
                case .sendable:
                    let written = core.machine.messagesWritten
                    let done = core.senders.filter { $0.number <= written }
                    core.senders.removeAll { $0.number <= written }
                    wake += done.map { sender in { sender.continuation.resume(returning: nil) } }
                case .ended:
                    let failure = Self.failure(of: core.machine)
                    if let opened = core.opened { wake.append { opened.resume(returning: failure) } }
                    core.opened = nil
                    let written = core.machine.messagesWritten
                    wake += core.senders.map { sender in
                        { sender.continuation.resume(returning: sender.number <= written ? nil : failure) }
                    }
                    core.senders = []
                    if let reader = core.reader {
                        let (message, _) = core.machine.take(now: clock.now)
                        let result: Result<[UInt8]?, ContinuationStreamFailure> =
                            message.map { .success($0) } ?? (failure == .closed ? .success(nil) : .failure(failure))
                        wake.append { reader.resume(returning: result) }
                        core.reader = nil
                    }
                    if core.pusher != nil { actions += Self.takeForPusher(&core, now: clock.now) }
                    core.timer?.cancel()
                    core.timer = nil
                    outgoingFinish()
                }
            }
            scheduleTimer(&core)
            return !core.pushes.isEmpty
        }
        for resume in wake { resume() }
        if push { deliverPushes() }
    }

    /// Keeps one timer task for the machine's next deadline, started again when it moves earlier.
    private func scheduleTimer(_ core: inout Core) {
        guard let deadline = core.machine.nextDeadline else {
            core.timer?.cancel()
            core.timer = nil
            core.timerTarget = nil
            return
        }
        if let target = core.timerTarget, core.timer != nil, target <= deadline { return }
        core.timer?.cancel()
        core.timerTarget = deadline
        let clock = clock
        core.timer = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            guard let self else { return }
            self.perform { core in
                core.timer = nil
                core.timerTarget = nil
                return core.machine.tick(now: clock.now)
            }
        }
    }
}
