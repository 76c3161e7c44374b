import Handoff

/// What peers see of a session; `BatonApp.update` publishes when it changes.
struct PublishedState: Equatable {
    let activityType: String
    let title: String
    let userInfo: [String: PropertyListValue]

    init(_ session: Session) {
        activityType = session.activityType
        title = session.title
        userInfo = session.userInfo
    }
}
