import HandoffWire
/// Told about an activity's life: before each save, and when another peer continued it.
@MainActor
public protocol UserActivityDelegate: AnyObject {
    /// Runs first in every save: bring the activity up to date.
    func userActivityWillSave(_ activity: UserActivity)
    /// Another peer continued this activity.
    func userActivityWasContinued(_ activity: UserActivity, by peer: PeerInfo)
    /// A listed device opened a continuation stream to this activity, which this program still
    /// holds and which supports streams; `stream` is this end of it.
    func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream)
}

extension UserActivityDelegate {
    public func userActivityWillSave(_ activity: UserActivity) {}
    public func userActivityWasContinued(_ activity: UserActivity, by peer: PeerInfo) {}
    public func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {}
}

/// The object that owns an activity's state: it writes it before a save and restores it on continue.
@MainActor
public protocol UserActivityResponder: AnyObject {
    /// Runs second in every save: write the current state into the activity.
    func updateUserActivityState(_ activity: UserActivity)
    /// Show the state an activity carries (after `ApplicationDelegate.continue`).
    func restoreUserActivityState(_ activity: UserActivity)
}

extension UserActivityResponder {
    public func updateUserActivityState(_ activity: UserActivity) {}
    public func restoreUserActivityState(_ activity: UserActivity) {}
}

/// The application's say over saves and continues, as an app delegate has on Apple's systems.
@MainActor
public protocol ApplicationDelegate: AnyObject {
    /// Runs last in every save: the application's final word on what is published.
    func didUpdate(_ activity: UserActivity)
    /// A continue of this type is starting; return false to decline it.
    func willContinue(activityType: String) -> Bool
    /// Continue the activity: call `restorationHandler` with the responders that should
    /// restore it (each gets `restoreUserActivityState`). Return false if not handled.
    func `continue`(_ activity: UserActivity, restorationHandler: ([any UserActivityResponder]) -> Void) -> Bool
    /// A continue of this type failed, with the reason.
    func didFailToContinue(activityType: String, error: HandoffError)
}

extension ApplicationDelegate {
    public func didUpdate(_ activity: UserActivity) {}
    public func willContinue(activityType: String) -> Bool { true }
    public func didFailToContinue(activityType: String, error: HandoffError) {}
}
