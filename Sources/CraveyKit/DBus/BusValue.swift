/// A D-Bus value, as cravey sends and reads them: the basic types, a string array, a variant and
/// the `a{sv}` dictionary that D-Bus properties and hints travel in.
enum BusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case double(Double)
    case strings([String])
    indirect case variant(BusValue)
    /// `a{sv}`: each value travels as a variant.
    case dictionary([String: BusValue])

    /// Its D-Bus type signature (`s`, `a{sv}`).
    var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .bool: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .double: "d"
        case .strings: "as"
        case .variant: "v"
        case .dictionary: "a{sv}"
        }
    }

    /// The value inside a variant, or the value itself.
    var unwrapped: BusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }
}
