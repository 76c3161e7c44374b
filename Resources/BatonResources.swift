import FoundationEssentials

/// What is compiled into Baton's programs: the default activity registry.
public enum BatonResources {
    /// The bytes of `Resources/Registry/ActivityTypes.plist` (`NSUserActivityTypes` and the schemas) as
    /// they were when the program was built. No file is read at run time, so a copied or
    /// installed binary carries its registry with it; `--registry FILE` replaces it.
    public static var registryData: Data { Data(PackageResources.ActivityTypes_plist) }

    /// How messages name the compiled-in registry, where they would name a file.
    public static let registryName = "the built-in registry (Resources/Registry/ActivityTypes.plist)"
}
