import Foundation
import GRDB

/// Reminders to listen (``Reminder``): added, listed, paused, resumed and removed, each change
/// one transaction of the library's store; kept in its database, so its backups carry them. A
/// capability reached from the door (``RecordingLibrary/reminders``). Their systemd units are
/// ``ReminderUnits``'.
package struct LibraryReminders: Sendable {
    package let library: RecordingLibrary

    /// The clip a reminder offers when it fires, and what a person should read once about it.
    package struct Offer: Sendable {
        /// The reminder as it now is.
        package var reminder: Reminder
        /// Its clip, or the first of Quick Play; nil when the library has no clip.
        package var recording: Recording?
        /// Said once: its clip was deleted, and it offers the first of Quick Play from now on.
        package var note: String?
    }

    /// Every reminder, by number.
    package func all() throws -> [Reminder] {
        try library.store.read { db in try Reminder.all(db) }
    }

    /// The reminder numbered `number`. Throws `.notFound`, naming the way to list them.
    package func reminder(_ number: Int64) throws -> Reminder {
        guard let found = try all().first(where: { $0.number == number }) else { throw Self.none(number) }
        return found
    }

    /// Stores a new reminder and returns it with its number. Its clip, if it names one, must be
    /// in the library (`.notFound` otherwise, nothing stored). `making` is handed it, numbered,
    /// before the commit (its units written, ``ReminderUnits/write(_:)``): what it throws
    /// stores nothing.
    package func add(_ reminder: Reminder, making: (Reminder) throws -> Void = { _ in }) throws -> Reminder {
        var new = reminder
        new.number = nil
        return try library.store.write { tx in
            if let clip = new.clip, try tx.repository.recording(clip) == nil {
                throw CraveyError(.notFound, "There is no clip \(clip) in the library for the reminder. `cravey list` shows the clips' ids; leave --clip out to offer the first of Quick Play.")
            }
            let saved = try new.save(tx.db)
            try making(saved)
            return saved
        }
    }

    /// The systemd units of the library's reminders (``ReminderUnits``): in `folder` (the
    /// user's systemd folder), running `program` (`cravey`), under names that carry the
    /// library's identity.
    package func units(in folder: URL, program: String, manager: UserManager = UserManager()) throws -> ReminderUnits {
        let identity = try library.store.read { db in try RecordingRepository(db).libraryID() }
        return ReminderUnits(folder: folder, program: program, library: library.url, prefix: "cravey-remind-\(identity.prefix(8))-", manager: manager)
    }

    /// Removes the reminder numbered `number`, and returns it. Throws `.notFound` (nothing changes).
    @discardableResult
    package func remove(_ number: Int64) throws -> Reminder {
        try library.store.write { tx in
            guard let found = try Reminder.all(tx.db).first(where: { $0.number == number }) else { throw Self.none(number) }
            try tx.db.execute(sql: "DELETE FROM reminder WHERE number = ?", arguments: [number])
            return found
        }
    }

    /// Pauses the reminder numbered `number` (every reminder when nil) until `date`
    /// (`Date.distantFuture`: until resumed); returns those it paused. Throws `.notFound` for a
    /// number no reminder has (nothing changes).
    package func pause(_ number: Int64?, until date: Date) throws -> [Reminder] {
        try change(number) { $0.pausedUntil = date }
    }

    /// Ends the pause of the reminder numbered `number` (every reminder when nil); returns them.
    package func resume(_ number: Int64?) throws -> [Reminder] {
        try change(number) { $0.pausedUntil = nil }
    }

    /// What the reminder numbered `number` offers now: its clip, or, when it names none, the
    /// first of Quick Play. A clip deleted since is said once (``Offer/note``): the reminder is
    /// changed, in the same transaction, to offer the first of Quick Play from then on.
    package func offer(_ number: Int64) throws -> Offer {
        try library.store.write { tx in
            guard var reminder = try Reminder.all(tx.db).first(where: { $0.number == number }) else { throw Self.none(number) }
            var note: String?
            if let clip = reminder.clip {
                if let recording = try tx.repository.recording(clip) { return Offer(reminder: reminder, recording: recording) }
                reminder.clip = nil
                try reminder.save(tx.db)
                note = "Reminder \(number)'s clip (\(clip)) is no longer in the library: it offers the first of Quick Play from now on."
            }
            return Offer(reminder: reminder, recording: try tx.repository.quickPlay().first, note: note)
        }
    }

    private func change(_ number: Int64?, _ body: (inout Reminder) -> Void) throws -> [Reminder] {
        try library.store.write { tx in
            let chosen = try Reminder.all(tx.db).filter { number == nil || $0.number == number }
            if let number, chosen.isEmpty { throw Self.none(number) }
            return try chosen.map { reminder in
                var changed = reminder
                body(&changed)
                return try changed.save(tx.db)
            }
        }
    }

    private static func none(_ number: Int64) -> CraveyError {
        CraveyError(.notFound, "There is no reminder \(number). `cravey remind` lists them, each with its number.")
    }
}
