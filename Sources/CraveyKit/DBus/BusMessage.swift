import Foundation
internal import CSDBus

/// One D-Bus message (a method call, its reply, a signal), freed when dropped.
///
/// Owned by the thread that owns its ``SessionBus``: sd-bus is not thread-safe.
final class BusMessage {
    let pointer: SDBus.Message
    private let sd: SDBus

    /// Takes ownership of a message sd-bus created. The corresponding C function (in `deinit`) is
    /// `sd_bus_message_unref`.
    init(owning pointer: SDBus.Message, _ sd: SDBus) {
        self.pointer = pointer
        self.sd = sd
    }

    /// Holds a message sd-bus lends a handler. The corresponding C function is `sd_bus_message_ref`.
    convenience init(borrowing pointer: SDBus.Message, _ sd: SDBus) {
        self.init(owning: sd.ref(pointer) ?? pointer, sd)
    }

    deinit { _ = sd.unref(pointer) }

    /// The interface a method call or signal names. The corresponding C function is
    /// `sd_bus_message_get_interface`.
    var interface: String { sd.getInterface(pointer).map { String(cString: $0) } ?? "" }

    /// The method or signal's name. The corresponding C function is `sd_bus_message_get_member`.
    var member: String { sd.getMember(pointer).map { String(cString: $0) } ?? "" }

    /// Appends `values` in order. The corresponding C functions are
    /// `sd_bus_message_append_basic`, `sd_bus_message_open_container` and
    /// `sd_bus_message_close_container`.
    func append(_ values: [BusValue]) throws(BusError) {
        for value in values { try append(value) }
    }

    private func append(_ value: BusValue) throws(BusError) {
        switch value {
        case .string(let text): try basic("s", text)
        case .objectPath(let path): try basic("o", path)
        case .bool(let flag): try basic("b", Int32(flag ? 1 : 0))
        case .int32(let number): try basic("i", number)
        case .uint32(let number): try basic("u", number)
        case .int64(let number): try basic("x", number)
        case .double(let number): try basic("d", number)
        case .strings(let texts): try container("a", "s") { () throws(BusError) in try append(texts.map(BusValue.string)) }
        case .variant(let inner): try container("v", inner.signature) { () throws(BusError) in try append(inner) }
        case .dictionary(let entries):
            try container("a", "{sv}") { () throws(BusError) in
                for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
                    try container("e", "sv") { () throws(BusError) in try append([.string(key), .variant(entry)]) }
                }
            }
        }
    }

    private func basic<T>(_ type: Unicode.Scalar, _ value: T) throws(BusError) {
        try BusError.check(withUnsafePointer(to: value) { sd.appendBasic(pointer, CChar(type.value), $0) }, "sd_bus_message_append_basic")
    }

    private func basic(_ type: Unicode.Scalar, _ text: String) throws(BusError) {
        try BusError.check(text.withCString { sd.appendBasic(pointer, CChar(type.value), $0) }, "sd_bus_message_append_basic")
    }

    private func container(_ type: Unicode.Scalar, _ contents: String, _ body: () throws(BusError) -> Void) throws(BusError) {
        try BusError.check(sd.openContainer(pointer, CChar(type.value), contents), "sd_bus_message_open_container")
        try body()
        try BusError.check(sd.closeContainer(pointer), "sd_bus_message_close_container")
    }

    /// The arguments from where reading stands to the end, or to the first that is not a basic
    /// type or a variant (an array, a structure), which is left unread. The corresponding C
    /// functions are `sd_bus_message_peek_type` and `sd_bus_message_read_basic`.
    func arguments() throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try next() { values.append(value) }
        return values
    }

    private func next() throws(BusError) -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard try BusError.check(sd.peekType(pointer, &type, &contents), "sd_bus_message_peek_type") > 0 else { return nil }
        func read<T>(_ initial: T) throws(BusError) -> T {
            var value = initial
            try BusError.check(withUnsafeMutablePointer(to: &value) { sd.readBasic(pointer, type, $0) }, "sd_bus_message_read_basic")
            return value
        }
        switch Unicode.Scalar(UInt8(bitPattern: type)) {
        case "s", "o":
            let text = try read(UnsafePointer<CChar>?.none).map { String(cString: $0) } ?? ""
            return type == CChar(UInt8(ascii: "s")) ? .string(text) : .objectPath(text)
        case "b": return .bool(try read(Int32(0)) != 0)
        case "i": return .int32(try read(Int32(0)))
        case "u": return .uint32(try read(UInt32(0)))
        case "x": return .int64(try read(Int64(0)))
        case "d": return .double(try read(0.0))
        case "v":
            try BusError.check(sd.enterContainer(pointer, type, contents), "sd_bus_message_enter_container")
            let inner = try next()
            try BusError.check(sd.exitContainer(pointer), "sd_bus_message_exit_container")
            return inner.map(BusValue.variant)
        default: return nil
        }
    }
}

@available(*, unavailable)
extension BusMessage: Sendable {}
