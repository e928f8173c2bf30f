import Foundation
import GRDB

/// A reminder's row in the `reminder` table (the migration `reminders`): its number, its time in
/// minutes since midnight, its days as a mask (``Weekdays/mask``), its clip's id or NULL, and
/// the end of its pause and the time it was last offered for as the library stores dates, or NULL.
extension Reminder {
    static let table = "reminder"

    /// Creates the table; run once, by the migration.
    static func create(_ db: Database) throws {
        try db.create(table: table) { t in
            // AUTOINCREMENT: a removed reminder's number (and so its units' names) is never given again.
            t.autoIncrementedPrimaryKey("number")
            t.column("minute", .integer).notNull().check { $0 >= 0 && $0 < 1440 }
            t.column("days", .integer).notNull().check { $0 >= 1 && $0 <= 127 }
            t.column("clip", .text)
            t.column("pausedUntil", .text)
            t.column("offeredFor", .text)
        }
    }

    /// Every reminder, by number.
    static func all(_ db: Database) throws -> [Reminder] {
        try Row.fetchAll(db, sql: "SELECT number, minute, days, clip, pausedUntil, offeredFor FROM reminder ORDER BY number").map { row in
            let minutes: Int = row[1]
            guard let time = TimeOfDay(hour: minutes / 60, minute: minutes % 60), let days = Weekdays(mask: row[2]) else {
                throw CraveyError(.other, "The library's reminder \(row[0] as Int64) holds a time or days no reminder has. Remove it (`cravey remind remove \(row[0] as Int64)`) and add it again.")
            }
            let clip: String? = row[3]
            return Reminder(number: row[0], time: time, days: days, clip: clip.flatMap(RecordingID.init),
                            pausedUntil: Recording.storedDate(row[4]), offeredFor: Recording.storedDate(row[5]))
        }
    }

    /// Stores a new reminder, or the changes of one stored; returns it with its number.
    @discardableResult
    func save(_ db: Database) throws -> Reminder {
        let arguments: StatementArguments = [time.minutes, days.mask, clip?.description, pausedUntil.map(Recording.storedText),
                                             offeredFor.map(Recording.storedText)]
        if let number {
            try db.execute(sql: "UPDATE reminder SET minute = ?, days = ?, clip = ?, pausedUntil = ?, offeredFor = ? WHERE number = ?",
                           arguments: arguments + [number])
            return self
        }
        try db.execute(sql: "INSERT INTO reminder (minute, days, clip, pausedUntil, offeredFor) VALUES (?, ?, ?, ?, ?)", arguments: arguments)
        var saved = self
        saved.number = db.lastInsertedRowID
        return saved
    }

    /// Adds the reminders of a backup the library does not have (the same time, days and clip),
    /// each with a new number; returns how many it added.
    static func restore(_ reminders: [Reminder], in db: Database) throws -> Int {
        var have = try all(db)
        var added = 0
        for reminder in reminders where !have.contains(where: { $0.isSame(as: reminder) }) {
            var new = reminder
            (new.number, new.offeredFor) = (nil, nil)
            have.append(try new.save(db))
            added += 1
        }
        return added
    }
}
