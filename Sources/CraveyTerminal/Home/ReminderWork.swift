import CraveyKit
import Foundation

/// The home screen's reminders work through the library's door (``LibraryReminders``) and
/// their systemd units (``ReminderUnits``), as `cravey remind` does it: a reminder added or
/// changed has its units written before it is stored and its timer started; one removed has
/// them disabled and removed. Blocking (the writers' lock, systemctl): run it off the
/// cooperative pool (``HomeWork``).
struct ReminderWork: Sendable {
    let library: RecordingLibrary
    /// The user's systemd folder and the `cravey` the services run (``AppSettings``).
    let folder: URL, program: String

    init(library: RecordingLibrary, settings: AppSettings) {
        (self.library, folder, program) = (library, settings.remindersFolder, settings.program)
    }

    /// Carries out a reminders' effect (nil for another effect): the change, then the reminders
    /// read again, with what to say of the change.
    func perform(_ effect: HomeEffect) throws -> (ReminderListing, said: String?)? {
        let said: String?
        switch effect {
        case .readReminders: said = nil
        case .saveReminder(let reminder, let clip): said = try save(reminder, clip: clip)
        case .pauseReminder(let number, let resume): said = try pause(number, resume: resume)
        case .removeReminder(let number): said = try remove(number)
        default: return nil
        }
        return (try ReminderListing(library, units: try units()), said)
    }

    private func units() throws -> ReminderUnits {
        try library.reminders.units(in: folder, program: program)
    }

    /// Adds `reminder` (no number), or changes the one of its number, offering the clip whose id
    /// starts with `clip` (empty: the first of Quick Play).
    private func save(_ reminder: Reminder, clip: String) throws -> String {
        var reminder = reminder
        reminder.clip = clip.isEmpty ? nil : try library.recording(matching: clip).id
        let units = try units()
        let saved = try reminder.number == nil ? library.reminders.add(reminder, making: units.write)
                                                 : library.reminders.change(reminder, making: units.write)
        let how = reminder.number == nil ? "Added" : "Changed"
        return "\(how) reminder \(saved.number ?? 0): \(saved.time) \(saved.days), offering \(try ReminderListing.offered(saved, in: library))."
            + started([saved], units)
    }

    /// Pauses the reminder numbered `number` until resumed, or resumes it (its units written
    /// again first, as `cravey remind resume` does).
    private func pause(_ number: Int64, resume: Bool) throws -> String {
        guard resume else {
            _ = try library.reminders.pause(number, until: .distantFuture)
            return "Paused reminder \(number) until p resumes it."
        }
        let units = try units()
        try units.write(try library.reminders.reminder(number))
        return "Resumed reminder \(number)." + started(try library.reminders.resume(number), units)
    }

    /// Removes the reminder numbered `number` and its units.
    private func remove(_ number: Int64) throws -> String {
        let units = try units()
        let removed = try library.reminders.remove(number)
        let warnings = units.unmake(number).map { " Warning: \($0)" }.joined()
        return "Removed reminder \(number) (\(removed.time) \(removed.days)) and its timer." + warnings
    }

    /// Starts `reminders`' timers; what to say when systemctl failed (no manager running is
    /// said once by the list, ``ReminderListing/notActive``).
    private func started(_ reminders: [Reminder], _ units: ReminderUnits) -> String {
        guard let failed = units.start(reminders), failed != units.manager.absence else { return "" }
        return " Not active: \(failed)"
    }
}
