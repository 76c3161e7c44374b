import BatonResources
import Handoff

/// What the shell offers for an activity type (`baton counter --continue-activity <Tab>`,
/// `baton follow <Tab>`): the types Baton's own registry declares, each also by its last label
/// (`editing`), which `--continue-activity` takes as well. A registry given with `--registry`
/// is not read at completion time. Offered through a custom completion, so the registry is read
/// when the shell asks, never when baton starts.
public enum ActivityTypeCompletion {
    /// `words` that start with `prefix`.
    public static func words(prefix: String) -> [String] {
        words.filter { $0.hasPrefix(prefix) }
    }

    public static var words: [String] {
        guard let registry = try? ActivityTypeRegistry(data: BatonResources.registryData, path: BatonResources.registryName)
        else { return [] }
        let labels = registry.declaredTypes.compactMap { type in type.split(separator: ".").last.map(String.init) }
        // A label two types share would be refused as ambiguous: only the unique ones.
        let unique = labels.filter { label in labels.filter { $0 == label }.count == 1 }
        return registry.declaredTypes + unique
    }
}
