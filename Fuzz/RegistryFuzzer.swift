// libFuzzer target: the activity-type registry file (Info.plist style).
//
// The whole input is the file. `ActivityTypeRegistry(data:path:)` sends bytes that start
// with `bplist` to Baton's own reader and everything else (XML, OpenStep text) to
// Foundation's `PropertyListSerialization`, so a crash inside Foundation's parsers shows
// up here as a finding about the registry path.
//
// Besides "no trap", an accepted registry keeps its promises: every declared type is a
// valid reverse-DNS type and declared once, every schema belongs to a declared type, and
// validating an empty userInfo against any declared type answers without trapping.
import Foundation
import Handoff

@_cdecl("LLVMFuzzerTestOneInput")
public func registryFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    let registry: ActivityTypeRegistry
    do {
        registry = try ActivityTypeRegistry(data: bytes, path: "fuzz.plist")
    } catch {
        _ = error.description
        return 0
    }
    guard Set(registry.declaredTypes).count == registry.declaredTypes.count else {
        fatalError("a type is declared twice: \(registry.declaredTypes)")
    }
    for type in registry.declaredTypes {
        guard ActivityTypeRegistry.isValidActivityType(type) else { fatalError("declared an invalid type \(type)") }
        guard registry.isDeclared(type) else { fatalError("\(type) is listed but not declared") }
        _ = try? registry.validate(type: type, userInfo: [:])
    }
    for type in registry.schemas.keys where !registry.isDeclared(type) {
        fatalError("a schema for the undeclared type \(type)")
    }
    return 0
}
