import Foundation

/// The library's reminders as a person reads them, `cravey remind`'s list and the home screen's
/// alike: each with what it offers, when it fires next, and whether its timer runs; why none runs
/// where no systemd user manager does is said once for them all (``notActive``), the reasons of
/// one reminder alone (its units not written, its timer stopped) on its own line.
package struct ReminderListing: Sendable {
    /// One reminder, read.
    package struct Item: Sendable, Encodable {
        package let reminder: Reminder
        /// The first time it fires after the listing was read, counting a pause.
        package let next: Date?
        /// Why its timer does not run, with what starts it; nil when it runs.
        package let inactive: String?
        /// What it offers, in words: its clip's title in quotes, or the first of Quick Play.
        package let offered: String
        /// When it fires next, or how long it is paused, in words.
        package let when: String

        private enum CodingKeys: String, CodingKey { case next, active, inactive }

        /// As `cravey remind --json` lists it: its own JSON, when it fires next, whether its timer
        /// runs and why not.
        package func encode(to encoder: any Encoder) throws {
            try reminder.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(next, forKey: .next)
            try container.encode(inactive == nil, forKey: .active)
            try container.encode(inactive, forKey: .inactive)
        }

        /// What its own line says of its timer: nothing when it runs, `not active` when the reason
        /// is ``ReminderListing/notActive`` (said once), else `not active: ` and its own reason.
        package func activity(sharing shared: String?) -> String? {
            guard let inactive else { return nil }
            return inactive == shared ? "not active" : "not active: " + inactive
        }
    }

    /// The reminders, by number.
    package let items: [Item]
    /// Why no reminder is active here (no systemd user manager runs, and what starts one), said
    /// once; nil when a manager runs or no reminder is kept from running by its absence.
    package let notActive: String?

    /// Reads `library`'s reminders at `now` with their `units`: which timers run is asked of the
    /// user manager (`systemctl --user is-active`, where one runs). Blocks: call it off the
    /// cooperative pool.
    package init(_ library: RecordingLibrary, units: ReminderUnits, at now: Date = Date()) throws {
        let reminders = try library.reminders.all()
        let active = units.manager.active(reminders.compactMap { $0.number.map { units.names($0).timer } })
        items = try reminders.map { reminder in
            Item(reminder: reminder, next: reminder.next(after: now), inactive: units.inactive(reminder, active: active),
                 offered: try Self.offered(reminder, in: library), when: Self.when(reminder, now: now))
        }
        let absence = units.manager.absence
        notActive = items.contains { $0.inactive != nil && $0.inactive == absence } ? absence : nil
    }

    /// What a reminder offers, in words: its clip's title, or the first of Quick Play.
    package static func offered(_ reminder: Reminder, in library: RecordingLibrary) throws -> String {
        guard let clip = reminder.clip else { return "the first of Quick Play" }
        guard let recording = try library.recording(clip) else { return "the first of Quick Play (its clip was deleted)" }
        return "\"\(Format.visible(recording.title))\""
    }

    /// When a reminder fires next, or how long it is paused.
    package static func when(_ reminder: Reminder, now: Date) -> String {
        if reminder.pausedUntil == .distantFuture { return "paused until resumed" }
        let next = reminder.next(after: now).map { "next \(Format.date($0))" } ?? "never"
        return reminder.isPaused(at: now) ? "paused, \(next)" : next
    }
}
