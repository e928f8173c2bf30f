import Foundation

/// A time into a clip as a person types it: seconds (`12.5`), or minutes and seconds (`1:02.5`),
/// or hours too (`1:02:03`); and as the shaping commands print it, to the millisecond (`0:04.150`).
/// The command line takes it as an option's value (CraveyCommands' `ExpressibleByArgument`
/// conformance); the terminal app writes times with ``text(_:)``.
package struct ClipTime: Sendable, Equatable {
    package let seconds: Double

    package init(seconds: Double) {
        self.seconds = seconds
    }

    /// Only the forms the help names: digits, with a decimal point and digits after it in the
    /// seconds, and one or two `:` before them (`12`, `12.5`, `1:02.5`, `1:02:03`). Not a sign,
    /// a space, an exponent, a hexadecimal float, `inf` or `nan`, which `Double` would take.
    package init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let secondsPart = parts.last, secondsPart.wholeMatch(of: #/[0-9]+(\.[0-9]+)?/#) != nil,
              let last = Double(secondsPart), last.isFinite, parts.count == 1 || last < 60 else { return nil }
        var total = last
        for (index, part) in parts.dropLast().reversed().enumerated() {
            guard part.wholeMatch(of: #/[0-9]+/#) != nil, let value = Int(part), index == parts.count - 2 || value < 60 else { return nil }
            total += Double(value) * (index == 0 ? 60 : 3600)
        }
        guard total.isFinite else { return nil }
        seconds = total
    }

    /// `0:04.150`, `12:30.000`, `1:02:03.250`; a time of a billion hours or more (which a person
    /// can type, and no clip lasts) in seconds, `3600000000000 s`, long before its milliseconds
    /// would not fit in an `Int`.
    package static func text(_ seconds: Double) -> String {
        guard seconds < 3.6e12 else { return seconds.isFinite ? String(format: "%.0f s", seconds) : "\(seconds) s" }
        let milliseconds = Int((max(seconds, 0) * 1000).rounded())
        let (hours, minutes, rest) = (milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds % 60_000)
        let tail = String(format: "%02d.%03d", rest / 1000, rest % 1000)
        return hours > 0 ? "\(hours):" + String(format: "%02d:", minutes) + tail : "\(minutes):" + tail
    }
}
