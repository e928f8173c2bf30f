import Foundation

/// An error from sd-bus: the negative errno it returned and the call that failed, or the D-Bus
/// error a remote method answered with (`org.freedesktop.DBus.Error.ServiceUnknown`).
package struct BusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The negative errno sd-bus returned (`-ECONNREFUSED`).
    package let code: Int32
    /// The operation that failed, for example `sd_bus_request_name`.
    package let operation: String
    /// The D-Bus error's name, when the other side replied with one.
    package var name: String? = nil

    /// The system's text for the code. The corresponding C function is `strerror`.
    package var description: String {
        "\(operation): \(name ?? String(cString: strerror(-code)))"
    }
}

/// A D-Bus method's error reply: its name (`org.freedesktop.DBus.Error.InvalidArgs`) and text.
struct BusMethodError: Error {
    var name: String
    var message: String

    static func invalidArguments(_ message: String) -> BusMethodError {
        BusMethodError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
}

extension BusError {
    /// Throws a ``BusError`` when an sd-bus call returned a negative errno; returns the result otherwise.
    @discardableResult
    static func check(_ result: Int32, _ operation: String) throws(BusError) -> Int32 {
        if result < 0 { throw BusError(code: result, operation: operation) }
        return result
    }
}
