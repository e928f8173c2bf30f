import Foundation
import SystemPackage

/// Writes recordings as the JSON `--json` and the export print: pretty printed, keys sorted,
/// every field present (`null` when absent), ISO 8601 dates, lowercase ids.
///
/// Written by hand because `JSONEncoder` spent over a second on 100,000 recordings; the output
/// decodes with `Recording.jsonDecoder()`.
package enum RecordingJSON {
    /// One recording as a JSON object.
    package static func encode(_ recording: Recording) -> Data {
        var out = JSONBuffer()
        out.write(recording, indent: 0)
        out.append("\n")
        return out.data
    }

    /// Writes recordings as a JSON array to a file descriptor, a block at a time; throws the
    /// `Errno` of the first write that fails (`.noSpace`, `.brokenPipe`), having stopped there.
    package static func write(_ recordings: [Recording], to descriptor: FileDescriptor) throws {
        var out = JSONBuffer()
        try out.write(recordings, indent: 0, flushingTo: descriptor)
        out.append("\n")
        try out.flush(to: descriptor)
    }

    /// Recordings as a JSON array.
    package static func encode(_ recordings: [Recording]) -> Data {
        var out = JSONBuffer()
        out.write(recordings, indent: 0)
        out.append("\n")
        return out.data
    }

    /// The export document: `{"exportDate": ..., "recordings": [...], "version": 1}`.
    package static func encodeExport(_ recordings: [Recording], exportDate: Date, version: Int) -> Data {
        var out = JSONBuffer()
        out.append("{\n  \"exportDate\" : ")
        out.date(exportDate)
        out.append(",\n  \"recordings\" : ")
        out.write(recordings, indent: 2)
        out.append(",\n  \"version\" : \(version)\n}\n")
        return out.data
    }
}

struct JSONBuffer {
    private(set) var bytes: [UInt8] = []
    /// Dates to the millisecond (a clip's record, which keeps what its row keeps) rather than to
    /// the second (`--json` and the export).
    var millisecondDates = false

    var data: Data { Data(bytes) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Writes what is buffered to `descriptor` (again after a short write, until all of it is
    /// written) and empties the buffer.
    mutating func flush(to descriptor: FileDescriptor) throws {
        _ = try bytes.withUnsafeBytes { try descriptor.writeAll($0) }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Writes an array.
    mutating func write(_ recordings: [Recording], indent: Int) {
        write(recordings, indent: indent) { _ in }
    }

    /// Writes an array, handing each megabyte to `descriptor` as it fills instead of holding the
    /// whole array in memory.
    mutating func write(_ recordings: [Recording], indent: Int, flushingTo descriptor: FileDescriptor) throws {
        try write(recordings, indent: indent) { out in
            if out.bytes.count > 1 << 20 { try out.flush(to: descriptor) }
        }
    }

    private mutating func write(_ recordings: [Recording], indent: Int,
                                afterEach: (inout JSONBuffer) throws -> Void) rethrows {
        guard !recordings.isEmpty else { return append("[]") }
        bytes.reserveCapacity(bytes.count + min(recordings.count, 2_000) * 520)
        let layout = Layout(indent: indent + 2)
        append("[\n")
        for (index, recording) in recordings.enumerated() {
            pad(indent + 2)
            write(recording, layout)
            append(index == recordings.count - 1 ? "\n" : ",\n")
            try afterEach(&self)
        }
        pad(indent)
        append("]")
    }

    mutating func write(_ r: Recording, indent: Int) {
        write(r, Layout(indent: indent))
    }

    /// What a recording's object holds at one indent but its values, made once for a whole
    /// array: `{`, each key on its line, `}`.
    private struct Layout {
        /// The bytes before each value of ``Recording/jsonKeys``, one after another: the line
        /// break after the value before (or the `{`), the indent and the key.
        var bytes: [UInt8] = []
        /// Where each key's bytes end in ``bytes``.
        var ends: [Int] = []
        /// The line break after the last value, the indent and `}`.
        var close: [UInt8]

        init(indent: Int) {
            let pad = String(repeating: " ", count: indent + 2)
            for (index, key) in Recording.jsonKeys.enumerated() {
                bytes += Array("\(index == 0 ? "{" : ",")\n\(pad)\"\(key.rawValue)\" : ".utf8)
                ends.append(bytes.count)
            }
            close = Array("\n\(String(repeating: " ", count: indent))}".utf8)
        }
    }

    private mutating func write(_ r: Recording, _ layout: Layout) {
        var start = 0
        for (key, end) in zip(Recording.jsonKeys, layout.ends) {
            bytes.append(contentsOf: layout.bytes[start..<end])
            value(key, of: r)
            start = end
        }
        bytes.append(contentsOf: layout.close)
    }

    /// An integer in decimal, without making a `String` of it.
    mutating func integer<Value: BinaryInteger>(_ value: Value) {
        guard value != 0 else { return bytes.append(UInt8(ascii: "0")) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The digits from the last, then turned around where they are.
        let start = bytes.count
        var rest = value.magnitude
        while rest > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        bytes[start...].reverse()
    }

    /// An array of strings on one line: `["calm", "sister"]`.
    mutating func strings(_ values: [String]) {
        append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { append(", ") }
            string(value)
        }
        append("]")
    }

    /// A clip's markers on one line: `[{"at" : 12.345, "label" : "chorus"}]`.
    mutating func markers(_ markers: [ClipMarker]) {
        append("[")
        for (index, marker) in markers.enumerated() {
            append(index > 0 ? ", {\"at\" : " : "{\"at\" : ")
            number(marker.seconds)
            append(", \"label\" : ")
            optional(marker.label) { $0.string($1) }
            append("}")
        }
        append("]")
    }

    /// An optional value: `null`, or the value as `write` writes it.
    mutating func optional<Value>(_ value: Value?, _ write: (inout JSONBuffer, Value) -> Void) {
        if let value { write(&self, value) } else { append("null") }
    }

    private mutating func pad(_ count: Int) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = value.utf8
        if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0..<0x20:
                append("\\u00")
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A number as Swift writes it (the shortest text that reads back as the same `Double`); the
    /// infinities and NaN, which JSON has no numbers for, as the strings "inf", "-inf", "nan".
    mutating func number(_ value: Double) {
        if value.isFinite { return append("\(value)") }
        append(value.isNaN ? "\"nan\"" : value < 0 ? "\"-inf\"" : "\"inf\"")
    }

    /// A UUID in lowercase, quoted (`uuidString` goes through `snprintf`).
    mutating func uuid(_ id: RecordingID) {
        bytes.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: id.uuid.uuid) { raw in
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `"2026-11-22T15:42:00Z"`, as `JSONEncoder`'s `.iso8601` strategy writes it; with
    /// ``millisecondDates``, `"2026-11-22T15:42:00.123Z"`, rounded to the nearest millisecond
    /// as the library stores dates.
    mutating func date(_ date: Date) {
        var fraction: Int64?
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        if millisecondDates {
            let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
            seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
            fraction = milliseconds - Int64(seconds) * 1000
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        bytes.append(UInt8(ascii: "\""))
        digits(Int(parts.tm_year) + 1900, 4); bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2); bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2); bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2); bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2); bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        if let fraction {
            bytes.append(UInt8(ascii: "."))
            digits(Int(fraction), 3)
        }
        append("Z\"")
    }

    private mutating func digits(_ value: Int, _ width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var value = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            value %= divisor
            divisor /= 10
        }
    }

    /// A date as ``date(_:)`` writes it, without the quotes: "2026-11-22T15:42:00Z".
    static func text(_ date: Date) -> String {
        var out = JSONBuffer()
        out.date(date)
        return String(decoding: out.bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    private static let hex = Array("0123456789abcdef".utf8)
}
