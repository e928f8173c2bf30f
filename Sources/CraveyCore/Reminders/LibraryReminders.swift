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
        /// The time it was offered for before this firing, which ``withdraw(_:)`` puts back.
        package var offeredBefore: Date?
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
            try Self.check(new.clip, in: tx)
            let saved = try new.save(tx.db)
            try making(saved)
            return saved
        }
    }

    /// Changes the time, days and clip of the reminder numbered as `reminder` is to `reminder`'s
    /// (its pause kept; it is offered again for its new times), and returns it. Its clip, if it
    /// names one, must be in the library; `making` is handed it before the commit, as
    /// ``add(_:making:)`` hands it (its units written again). Throws `.notFound` for a number no
    /// reminder has, or a clip no clip is: nothing changes.
    package func change(_ reminder: Reminder, making: (Reminder) throws -> Void = { _ in }) throws -> Reminder {
        let number = reminder.number ?? 0
        return try library.store.write { tx in
            guard var changed = try Reminder.all(tx.db).first(where: { $0.number == number }) else { throw Self.none(number) }
            try Self.check(reminder.clip, in: tx)
            (changed.time, changed.days, changed.clip, changed.offeredFor) = (reminder.time, reminder.days, reminder.clip, nil)
            let saved = try changed.save(tx.db)
            try making(saved)
            return saved
        }
    }

    /// Refuses a reminder's clip that is not in the library (`.notFound`).
    private static func check(_ clip: RecordingID?, in tx: StoreTransaction) throws {
        if let clip, try tx.repository.recording(clip) == nil {
            throw CraveyError(.notFound, "There is no clip \(clip) in the library for the reminder. `cravey list` shows the clips' ids; leave --clip out to offer the first of Quick Play.")
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

    /// What a firing of a reminder (its timer's, `cravey remind --fire`) is to do.
    package enum Firing: Sendable {
        /// Offer this: the time it is for is now marked offered.
        case offer(Offer)
        /// Nothing: it is paused until then (`Date.distantFuture`: until resumed).
        case paused(until: Date)
        /// Nothing: it was offered for this time of it already.
        case offered(for: Date)
    }

    /// A firing of the reminder numbered `number` at `now`, in one transaction: nothing while it
    /// is paused, nothing when it was offered already for the last of its times at or before
    /// `now` (so a machine waking from a day's sleep, or a timer and a person both firing it,
    /// offers once); else that time is marked offered and it offers its clip, or, when it names
    /// none, the first of Quick Play. A clip deleted since is said once (``Offer/note``): the
    /// reminder is changed to offer the first of Quick Play from then on. Throws `.notFound`
    /// for a number no reminder has.
    package func fire(_ number: Int64, at now: Date = Date(), calendar: Calendar = .current) throws -> Firing {
        try library.store.write { tx in
            guard var reminder = try Reminder.all(tx.db).first(where: { $0.number == number }) else { throw Self.none(number) }
            if let until = reminder.pausedUntil, reminder.isPaused(at: now) { return .paused(until: until) }
            let time = reminder.previous(atOrBefore: now, calendar: calendar) ?? now
            let before = reminder.offeredFor
            if let before, before >= time { return .offered(for: before) }
            reminder.offeredFor = time
            var note: String?
            var recording: Recording?
            if let clip = reminder.clip {
                recording = try tx.repository.recording(clip)
                if recording == nil {
                    reminder.clip = nil
                    note = "Reminder \(number)'s clip (\(clip)) is no longer in the library: it offers the first of Quick Play from now on."
                }
            }
            try reminder.save(tx.db)
            return .offer(Offer(reminder: reminder, recording: try recording ?? tx.repository.quickPlay().first, note: note, offeredBefore: before))
        }
    }

    /// Takes back an offer that could not be made (no session bus, no notification server): its
    /// time is no longer marked offered, so a later firing for it offers it. Nothing changes when
    /// another firing marked a later time meanwhile.
    package func withdraw(_ offer: Offer) throws {
        guard let number = offer.reminder.number else { return }
        try library.store.write { tx in
            guard var reminder = try Reminder.all(tx.db).first(where: { $0.number == number }),
                  reminder.offeredFor == offer.reminder.offeredFor else { return }
            reminder.offeredFor = offer.offeredBefore
            try reminder.save(tx.db)
        }
    }

    /// Whether a recording is under way in the library now: a clip's media being recorded
    /// (`.partial`) that its recorder holds locked, as every recorder holds it from its first
    /// byte until it is saved (a crash's leftover is held by none). A firing waits while one is
    /// (``recordings``' changes wake it): a reminder never interrupts a recording.
    package func recordingUnderWay() -> Bool {
        guard let files = library.store.files else { return false }
        let folder = ClipFiles.Part.media.folder
        return files.entries(in: folder).contains { entry in
            guard let file = entry.file(in: folder), file.name.hasSuffix(ClipFiles.MediaState.recording.rawValue) else { return false }
            return files.isLocked(file)
        }
    }

    /// The folder a recording's media is written in (watched while a firing waits for one).
    package var recordings: URL {
        library.store.files?.url(of: ClipFiles.Part.media.folder) ?? library.url
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
