import BatonApp
import Handoff

extension NearbyItem {
    /// The item for a nearby activity; without a title, one is made from its state, or its type.
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
            id: record.activityID, activityType: record.activityType, title: title,
            peerName: record.peer.name, savedAt: record.savedAt, lastHeard: activity.lastHeard,
            stateSize: activity.stateSize)
    }
}
