import Foundation

/// A reminder to listen: at a time of day, on some days of the week, the library offers a clip
/// (one named, or the first of Quick Play) through the desktop. Kept in the library's database
/// (and so in its backups) by ``LibraryReminders``; made real by a systemd user timer
/// (``ReminderUnits``).
package struct Reminder: Sendable, Equatable, Codable {
    /// Its number in the library, which the command line names it by and its units carry: given
    /// once and never again to another reminder of the library (nil until it is stored).
    package var number: Int64?
    /// When it fires, in the machine's local time.
    package var time: TimeOfDay
    /// The days it fires on.
    package var days: Weekdays
    /// The clip it offers; nil offers the first of Quick Play as it is then.
    package var clip: RecordingID?
    /// Until when it stays quiet: nil when it is not paused, `Date.distantFuture` until it is
    /// resumed.
    package var pausedUntil: Date?
    /// The time it was last offered for (one of its times, ``previous(atOrBefore:calendar:)``),
    /// so that it is never offered twice for one time; its library's alone (not in its JSON).
    package var offeredFor: Date?

    package init(number: Int64? = nil, time: TimeOfDay, days: Weekdays = .daily, clip: RecordingID? = nil, pausedUntil: Date? = nil,
                 offeredFor: Date? = nil) {
        (self.number, self.time, self.days, self.clip, self.pausedUntil, self.offeredFor) = (number, time, days, clip, pausedUntil, offeredFor)
    }

    /// Whether it is paused at `date`.
    package func isPaused(at date: Date) -> Bool {
        pausedUntil.map { $0 > date } ?? false
    }

    /// The first time after `date` it fires, counting a pause: in `calendar`'s time zone (the
    /// machine's, as systemd reads `OnCalendar=`), at its time of day on one of its days. A time
    /// a clock change skips fires at the first minute after it, as systemd does. Nil while it is
    /// paused until resumed.
    package func next(after date: Date, calendar: Calendar = .current) -> Date? {
        var start = date
        if let pausedUntil, pausedUntil > date {
            guard pausedUntil != .distantFuture else { return nil }
            // A firing at the very end of the pause is not paused.
            start = pausedUntil.addingTimeInterval(-0.001)
        }
        return days.members.compactMap { day in
            calendar.nextDate(after: start, matching: DateComponents(hour: time.hour, minute: time.minute, weekday: day.calendarWeekday),
                              matchingPolicy: .nextTime)
        }.min()
    }

    /// The last of its times at or before `date` (what a firing at `date` is for: a timer that
    /// fires late, as a machine wakes, fires for the time it missed), in `calendar`'s time zone.
    package func previous(atOrBefore date: Date, calendar: Calendar = .current) -> Date? {
        days.members.compactMap { day in
            calendar.nextDate(after: date.addingTimeInterval(0.001), matching: DateComponents(hour: time.hour, minute: time.minute, weekday: day.calendarWeekday),
                              matchingPolicy: .nextTime, direction: .backward)
        }.max()
    }

    /// The same reminder, as a backup or another library would hold it: its time, days and clip
    /// (its number and pause are its library's).
    package func isSame(as other: Reminder) -> Bool {
        time == other.time && days == other.days && clip == other.clip
    }

    // MARK: - JSON

    /// As `cravey remind --json` prints it and a backup keeps it: `{"number": 1, "time": "18:30",
    /// "days": ["mon", "tue"], "clip": id or null, "pausedUntil": ISO 8601, "forever" or null}`.
    private enum CodingKeys: String, CodingKey { case number, time, days, clip, pausedUntil }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        number = try container.decodeIfPresent(Int64.self, forKey: .number)
        do {
            time = try TimeOfDay(parsing: try container.decode(String.self, forKey: .time))
            days = try Weekdays(parsing: try container.decode([String].self, forKey: .days).joined(separator: ","))
        } catch let error as CraveyError {
            throw DecodingError.dataCorruptedError(forKey: .time, in: container, debugDescription: error.message)
        }
        clip = try container.decodeIfPresent(RecordingID.self, forKey: .clip)
        offeredFor = nil
        switch try container.decodeIfPresent(String.self, forKey: .pausedUntil) {
        case nil: pausedUntil = nil
        case "forever": pausedUntil = .distantFuture
        case let text?:
            guard let date = ClipRecord.date(iso8601: text) else {
                throw DecodingError.dataCorruptedError(forKey: .pausedUntil, in: container, debugDescription: "'\(text)' is no date")
            }
            pausedUntil = date
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(number, forKey: .number)
        try container.encode(time.description, forKey: .time)
        try container.encode(days.members.map(\.name), forKey: .days)
        try container.encode(clip, forKey: .clip)
        let pause = pausedUntil.map { $0 == .distantFuture ? "forever" : JSONBuffer.text($0) }
        try container.encode(pause, forKey: .pausedUntil)
    }
}
