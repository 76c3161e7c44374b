import Foundation

/// What `UserActivity` asks of its center, and the save hooks.
extension ActivityCenter {
    func makeCurrent(_ activity: UserActivity) {
        guard isRunning else { return }
        if let previous = currentActivity, previous !== activity { resign(previous) }
        guard currentActivity !== activity else { return }
        currentActivity = activity
        remember(activity)
        perform(core.makeCurrent(activityID: activity.activityID, isEligible: activity.isEligibleForHandoff, now: clock.now))
        activity.needsSave = true
        activityNeedsSave(activity)
    }

    func resign(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        currentActivity = nil
        perform(core.resign(activityID: activity.activityID, now: clock.now))
    }

    func eligibilityChanged(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        perform(core.eligibilityChanged(activityID: activity.activityID, isEligible: activity.isEligibleForHandoff, now: clock.now))
        if activity.isEligibleForHandoff { activity.needsSave = true }
    }

    func activityNeedsSave(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        core.requestSave(activityID: activity.activityID, now: clock.now)
        reschedule()
    }

    /// Runs the three hooks in order, then hands the record to the core to check and publish.
    func save(_ activity: UserActivity) {
        saveCount += 1
        activity.isSaving = true
        activity.delegate?.userActivityWillSave(activity)
        activity.responder?.updateUserActivityState(activity)
        applicationDelegate?.didUpdate(activity)
        activity.isSaving = false
        activity.needsSave = false
        guard currentActivity === activity else { return }
        perform(core.saveFinished(activity.record(peer: configuration.peer), now: clock.now))
        reschedule()
    }
}
