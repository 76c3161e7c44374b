import Foundation

/// Finds the files bundled with Baton's programs.
public enum BatonResources {
    /// The name of the bundled registry inside the resource bundle.
    static let registryPath = "Registry/Info.plist"

    /// The bundled registry plist (`NSUserActivityTypes` and schemas), or nil when the
    /// resource bundle is missing (a program copied without its `.resources` folder).
    ///
    /// Looks beside the executable first, as an installed program would be laid out,
    /// then where the package manager built it.
    public static var registryURL: URL? {
        var candidates: [URL] = []
        let bundleName = "baton_BatonResources.resources"
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let dir = executable.deletingLastPathComponent()
            candidates.append(dir.appendingPathComponent(bundleName))
            // Test bundles live one level below the build folder.
            candidates.append(dir.deletingLastPathComponent().appendingPathComponent(bundleName))
            candidates.append(dir.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(bundleName))
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(bundleName))
        // The copy in the source tree, for tests run from a checkout.
        candidates.append(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Resources"))
        for base in candidates {
            let url = base.appendingPathComponent(registryPath)
            if FileManager.default.isReadableFile(atPath: url.path) { return url }
        }
        return nil
    }
}
