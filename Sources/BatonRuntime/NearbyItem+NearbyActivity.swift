import BatonApp
import Handoff
import HandoffWire

extension NearbyItem {
    /// The items for nearby activities, in the same order, each peer shown by its label from
    /// `PeerText.nameLabels`: a name that looks like another sender's ends in the start of its
    /// sender ID ("alice@laptop #3fa2"), so an impostor cannot pass for the peer it imitates.
    public static func items(_ activities: [NearbyActivity]) -> [NearbyItem] {
        let labels = PeerText.nameLabels(activities.map { ($0.record.peer.name, $0.senderID) })
        return zip(activities, labels).map { activity, label in
            var item = NearbyItem(activity)
            item.peerName = label
            return item
        }
    }

    /// The item for a nearby activity; without a title, one is made from its state, or its type.
    /// Title and peer name are made visible (`PeerText.visible`).
    public init(_ activity: NearbyActivity) {
        let record = activity.record
        let title: String
        if let given = record.title, !given.allSatisfy(\.isWhitespace) {
            title = given
        } else if let session = Session(activityType: record.activityType, userInfo: record.userInfo, from: record.peer.name) {
            title = session.title
        } else {
            title = record.activityType
        }
        self.init(
            id: record.activityID, activityType: record.activityType, title: PeerText.visible(title),
            peerName: PeerText.visible(record.peer.name), savedAt: record.savedAt, lastHeard: activity.lastHeard,
            stateSize: activity.stateSize)
    }
}
