import Foundation

/// The days of the week a reminder fires on: typed as names (`mon`, `monday`), ranges
/// (`mon..fri`, `fri..mon` across the week's end), lists of either (`mon,wed..fri`), or
/// `daily`, `weekdays`, `weekends`; written in the shortest of those forms.
package struct Weekdays: Sendable, Hashable, CustomStringConvertible {
    /// A day of the week, Monday first (as ISO 8601 and systemd count them).
    package enum Day: Int, Sendable, CaseIterable, Comparable {
        case mon, tue, wed, thu, fri, sat, sun

        /// Its short name, as typed and as systemd's `OnCalendar=` reads it (in any case).
        package var name: String { ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][rawValue] }

        /// Foundation's number for it (`Calendar`'s `weekday`: 1 is Sunday).
        package var calendarWeekday: Int { (rawValue + 1) % 7 + 1 }

        /// The day `text` names: its short name or its whole name (`thu`, `thursday`), in any case;
        /// `tues`, `thur` and `thurs` too.
        init?(_ text: some StringProtocol) {
            let typed = text.lowercased()
            let whole = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
            guard let index = Day.allCases.firstIndex(where: { day in
                typed == day.name || typed == whole[day.rawValue] || (typed.count >= 3 && whole[day.rawValue].hasPrefix(typed) && typed.count <= 5)
            }) else { return nil }
            self = Day.allCases[index]
        }

        package static func < (left: Day, right: Day) -> Bool { left.rawValue < right.rawValue }
    }

    /// The days, each bit a ``Day`` (bit 0 Monday), as the library stores them: 1 to 127.
    package let mask: Int

    /// Every day.
    package static let daily = Weekdays(Day.allCases)
    /// Monday to Friday.
    package static let weekdays = Weekdays([.mon, .tue, .wed, .thu, .fri])
    /// Saturday and Sunday.
    package static let weekends = Weekdays([.sat, .sun])

    package init(_ days: some Sequence<Day>) {
        mask = days.reduce(0) { $0 | 1 << $1.rawValue }
    }

    /// The days of a stored mask; nil for one that holds no day or bits of no day.
    package init?(mask: Int) {
        guard (1...127).contains(mask) else { return nil }
        self.mask = mask
    }

    /// Reads days as a person types them: `mon..fri`, `sat,sun`, `mon,wed..fri`, `fri..mon`,
    /// `daily`, `weekdays`, `weekends` (names in any case, short or whole).
    ///
    /// Throws ``CraveyError`` `.invalidInput`, naming the part that is no day and the forms days
    /// take, for anything else (nothing, `funday`, `mon..`).
    package init(parsing text: String) throws {
        var days: Set<Day> = []
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        for part in parts {
            switch part.lowercased() {
            case "daily", "everyday": days.formUnion(Day.allCases)
            case "weekdays": days.formUnion(Weekdays.weekdays.members)
            case "weekends": days.formUnion(Weekdays.weekends.members)
            default:
                let ends = part.components(separatedBy: "..")
                if ends.count == 1, let day = Day(part) {
                    days.insert(day)
                } else if ends.count == 2, let first = Day(ends[0]), let last = Day(ends[1]) {
                    // A range across the week's end (fri..mon) goes on through Sunday.
                    var day = first
                    while true {
                        days.insert(day)
                        if day == last { break }
                        day = Day(rawValue: (day.rawValue + 1) % 7)!
                    }
                } else {
                    let what = parts.count == 1 ? CraveyError.quoted(text, "\"") : "\(CraveyError.quoted(part, "\"")) in \(CraveyError.quoted(text, "\""))"
                    throw CraveyError(.invalidInput, "\(what) is not a day of the week: give days as mon,tue,... (or monday), ranges such as mon..fri, or daily, weekdays, weekends.")
                }
            }
        }
        self.init(days)
    }

    /// The days, Monday first.
    package var members: [Day] { Day.allCases.filter { mask & 1 << $0.rawValue != 0 } }

    /// `daily`, or the days Monday first with three or more in a row as a range: `mon..fri`,
    /// `sat,sun`, `mon,wed..fri`.
    package var description: String {
        if self == .daily { return "daily" }
        var runs: [[Day]] = []
        for day in members {
            if let last = runs.last?.last, last.rawValue + 1 == day.rawValue { runs[runs.count - 1].append(day) } else { runs.append([day]) }
        }
        return runs.map { run in
            run.count >= 3 ? "\(run.first!.name)..\(run.last!.name)" : run.map(\.name).joined(separator: ",")
        }.joined(separator: ",")
    }
}
