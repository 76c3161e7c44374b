import FoundationEssentials
import Logging
import HandoffWire

/// The devices' gossip on the bus (docs/PROTOCOL.md section 17): owns DEVICES, gives the
/// statements heard to the `Membership`, and runs `DevicesCore`, which says when this peer's
/// own statements go out.
@MainActor
final class DevicesService: BusService {
    let kinds: Set<DatagramKind> = [.devices]
    private unowned let bus: DatagramBus
    private var core: DevicesCore
    /// The datagram limit the statements are packed under.
    private let datagramLimit: Int
    /// Told when statements heard changed the list of devices or gave this device a new key.
    var changed: (@MainActor (Membership.Change) -> Void)?

    init(bus: DatagramBus, configuration: ActivityCenter.Configuration) {
        self.bus = bus
        datagramLimit = configuration.maximumDatagramSize
        core = DevicesCore(interval: configuration.devicesInterval, answerSpacing: configuration.devicesAnswerSpacing)
    }

    private var membership: Membership { bus.membership }

    func busStarted(now: ClockReading) {
        core.start(messages(now: now), now: now.instant)
    }

    var nextDeadline: ContinuousClock.Instant? { core.nextDeadline }

    func tick(now: ClockReading) {
        perform(core.tick(now: now.instant), now: now)
    }

    func receive(_ delivery: BusDelivery, now: ClockReading) {
        for arrival in delivery.arrivals {
            guard case .devices(let statements, let digest) = arrival.message else { continue }
            let change = membership.taking(statements)
            if !change.isEmpty {
                bus.logger.notice(
                    "devices: statements taken\(change.newKey == nil ? "" : ", and a new group key (\(change.newKey!.keyID))")")
                perform(core.changed(messages(now: now), now: now.instant), now: now)
                changed?(change)
            } else if digest != membership.digest, membership.device(for: arrival.sender.tag) != nil {
                // Answered for listed devices only: one that is not listed (a removed one among
                // them) could otherwise keep two peers answering each other every second.
                perform(core.differs(now: now.instant), now: now)
            }
        }
    }

    /// Another process changed the files the membership comes from: the statements go out
    /// again at once.
    func replaced(now: ClockReading) {
        perform(core.changed(messages(now: now), now: now.instant), now: now)
        bus.reschedule()
    }

    func shutdown() { core.shutdown() }

    /// The DEVICES messages for every statement kept, under this peer's datagram limit.
    private func messages(now: ClockReading) -> [HandoffMessage] {
        membership.devicesMessages(limit: datagramLimit, sentAt: now.date)
    }

    private func perform(_ actions: [DevicesCore.Action], now: ClockReading) {
        for case .send(let message) in actions { bus.send(message, at: now.date, previousKeyToo: true) }
    }
}
