import NIOCore
import NIOPosix

extension MulticastError {
    /// A short reason for a system error: `No such device, errno 19` rather than NIO's
    /// `setsockopt(socket:level:optionName:optionValue:optionLen:): No such device (errno: 19)`.
    static func reason(for error: any Error) -> String {
        guard let ioError = error as? IOError else { return "\(error)" }
        return "\(String(cString: strerror(ioError.errnoCode))), errno \(ioError.errnoCode)"
    }
}
