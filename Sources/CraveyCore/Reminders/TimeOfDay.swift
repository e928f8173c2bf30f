import Foundation

/// A time of day to the minute, as a reminder fires at it: typed `18:30` (a 24-hour clock) or
/// `6:30pm` / `7pm` (a 12-hour one), written `18:30`.
package struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Minutes since midnight, 0 to 1439.
    package let minutes: Int

    package var hour: Int { minutes / 60 }
    package var minute: Int { minutes % 60 }

    /// The time `hour`:`minute`; nil out of a day's range.
    package init?(hour: Int, minute: Int) {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        minutes = hour * 60 + minute
    }

    /// Reads `18:30`, `06:30`, `6:30pm`, `7pm`, `7 PM`, `12am` (midnight).
    ///
    /// Throws ``CraveyError`` `.invalidInput`, naming the text and the forms a time takes, for
    /// anything else (`25:00`, `7:60`, `13pm`, `18`).
    package init(parsing text: String) throws {
        let typed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var clock = Substring(typed)
        var half: String?
        for suffix in ["am", "pm"] where clock.hasSuffix(suffix) {
            half = suffix
            clock = clock.dropLast(2)
            while clock.last == " " { clock = clock.dropLast() }
        }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        func number(_ part: Substring, digits: ClosedRange<Int>) -> Int? {
            guard digits.contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        var hour: Int?, minute: Int?
        switch (parts.count, half) {
        case (2, _):
            (hour, minute) = (number(parts[0], digits: 1...2), number(parts[1], digits: 2...2))
        case (1, _?):
            (hour, minute) = (number(parts[0], digits: 1...2), 0)
        default:
            break
        }
        if let half, let read = hour {
            // 12am is midnight and 12pm noon; 0am and 13pm are no times.
            hour = (1...12).contains(read) ? read % 12 + (half == "pm" ? 12 : 0) : nil
        }
        guard let hour, let minute, let time = TimeOfDay(hour: hour, minute: minute) else {
            throw CraveyError(.invalidInput, "\(CraveyError.quoted(text, "\"")) is not a time of day: give it on a 24-hour clock (18:30) or with am or pm (6:30pm, 7pm).")
        }
        self = time
    }

    /// `18:30`, as systemd's `OnCalendar=` and the list read it.
    package var description: String {
        String(format: "%02d:%02d", hour, minute)
    }

    package static func < (left: TimeOfDay, right: TimeOfDay) -> Bool { left.minutes < right.minutes }
}
