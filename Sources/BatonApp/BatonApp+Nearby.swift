import Handoff
import TerminalUI
import HandoffWire

extension BatonApp {
    /// Opens the nearby list with the newest activity selected.
    static func openNearby(_ model: inout AppModel) {
        model.overlay = .nearby(selectedID: model.nearby.first?.id)
    }

    /// Takes a new list of nearby activities, newest first, keeping the list's selection on the
    /// same activity, or at the same place when that one left. Titles and peer names are kept
    /// made visible (`PeerText.visible`).
    static func replaceNearby(with items: [NearbyItem], _ model: inout AppModel) {
        let old = model.nearby
        let visible = items.map { item in
            var item = item
            item.title = PeerText.visible(item.title)
            item.peerName = PeerText.visible(item.peerName)
            return item
        }
        model.nearby = visible.sorted { a, b in
            if a.savedAt != b.savedAt { return a.savedAt > b.savedAt }
            return a.id < b.id
        }
        guard case .nearby(let selectedID) = model.overlay else { return }
        if let selectedID, model.nearby.contains(where: { $0.id == selectedID }) { return }
        let oldIndex = old.firstIndex { $0.id == selectedID } ?? 0
        let index = min(oldIndex, model.nearby.count - 1)
        model.overlay = .nearby(selectedID: index >= 0 ? model.nearby[index].id : nil)
    }

    /// The index of the selected item in the nearby list (0 when the selection is gone).
    static func selectedIndex(_ selectedID: String?, in items: [NearbyItem]) -> Int {
        items.firstIndex { $0.id == selectedID } ?? 0
    }

    /// The nearby list's keys: Up/Down (also k/j), Home/End, PgUp/PgDn, Enter continues,
    /// Esc, q or Ctrl-N close, Ctrl-Q quits.
    static func handleNearbyKey(_ key: Key, selectedID: String?, _ model: inout AppModel) -> [AppCommand] {
        let items = model.nearby
        let index = selectedIndex(selectedID, in: items)
        let page = max(1, model.layout.mainBottom - 2)
        func select(_ newIndex: Int) {
            guard !items.isEmpty else { return }
            model.overlay = .nearby(selectedID: items[newIndex.clamped(0, items.count - 1)].id)
        }
        switch key {
        case .up, .character("k"):
            select(index - 1)
        case .down, .character("j"):
            select(index + 1)
        case .home:
            select(0)
        case .end:
            select(items.count - 1)
        case .pageUp:
            select(index - page)
        case .pageDown:
            select(index + page)
        case .enter:
            guard items.indices.contains(index) else { return [] }
            return choose(items[index], &model)
        case .character("f"), .character("F"):
            guard items.indices.contains(index) else { return [] }
            if items[index].activityType == shellActivityType {
                if case .editor(let state) = model.session, state.isDirty {
                    model.show("Save first (Ctrl-S): following the shell session takes this terminal.", kind: .problem)
                    return []
                }
                return joinShell(items[index], follow: true, &model)
            }
            model.overlay = nil
            return startFollowing(activityID: items[index].id, &model)
        case .escape, .character("q"), .character("Q"), .control("n"), .control("c"):
            model.overlay = nil
        case .control("q"):
            model.overlay = nil
            return requestQuit(&model)
        default:
            break
        }
        return []
    }

    /// Continues `item`, first asking when that would replace unsaved changes.
    static func choose(_ item: NearbyItem, _ model: inout AppModel) -> [AppCommand] {
        if case .editor(let state) = model.session, state.isDirty {
            model.overlay = .confirm(.discardChangesToContinue(id: item.id))
            return []
        }
        return continueActivity(id: item.id, &model)
    }
}
