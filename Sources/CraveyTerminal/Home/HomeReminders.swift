import CraveyKit
import Foundation

/// The reminders shown on the home screen (`t`): as last read, and the one selected.
struct RemindersView {
    /// The reminders as last read (``ReminderWork``); nil until they are.
    var listing: ReminderListing?
    /// The index of the one selected.
    var selected = 0
    /// Whether their keys are shown (`?`), until the next key.
    var showsHelp = false

    /// The reminder selected, once read.
    var selectedItem: ReminderListing.Item? {
        guard let items = listing?.items, items.indices.contains(selected) else { return nil }
        return items[selected]
    }
}

/// What the keys do in the home screen's reminders (``RemindersView``), as `cravey remind` does
/// it: listed, added and changed (a time, days and a clip typed on the status line, as `e` types
/// a title), paused or resumed, removed (asked first). Every change is an effect carried out
/// through the door (``ReminderWork``), which reads them again.
enum HomeReminders {
    /// The questions a reminder's line asks, in order: its time, its days, its clip.
    static let questions = ["Time (18:30, 6:30pm):", "Days (mon..fri, sat,sun, weekdays, daily):",
                            "Clip (an id or its start; empty: the first of Quick Play):"]

    /// `t`: shows the reminders, read now.
    static func open(_ state: inout HomeState) -> [HomeEffect] {
        guard state.library.isCreated else {
            state.dialog.say("No reminders: the library is not made yet (r records its first clip).")
            return []
        }
        state.dialog.mode = .reminders(RemindersView())
        return [.readReminders]
    }

    /// A key while the reminders are shown (``KeyTable``'s reminders context).
    static func key(_ key: Key, _ view: RemindersView, _ state: inout HomeState) -> [HomeEffect] {
        var view = view
        let item = view.selectedItem
        // The help closes at any key, which does nothing else.
        if view.showsHelp {
            view.showsHelp = false
            state.dialog.mode = .reminders(view)
            return []
        }
        switch KeyTable.action(for: key, in: .reminders) {
        case .move(let rows)?:
            view.selected = max(min(view.selected + rows, (view.listing?.items.count ?? 1) - 1), 0)
        case .addReminder?:
            state.dialog.mode = .prompt(prompt(0, of: nil, view, answers: []))
            return []
        case .changeReminder?:
            guard let item else { break }
            state.dialog.mode = .prompt(prompt(0, of: item.reminder, view, answers: []))
            return []
        case .pauseReminder?:
            guard let item, let number = item.reminder.number else { break }
            state.dialog.mode = .reminders(view)
            return [.pauseReminder(number, resume: item.reminder.pausedUntil != nil)]
        case .removeReminder?:
            guard let item else { break }
            state.dialog.mode = .removeReminder(item.reminder, view)
            return []
        case .help?:
            view.showsHelp = true
        case .closeReminders?:
            state.dialog.mode = .browsing
            return []
        default:
            break
        }
        state.dialog.mode = .reminders(view)
        return []
    }

    /// The line asking for part `field` (0 the time, 1 the days, 2 the clip) of `reminder` (nil:
    /// a new one), filled in with what it is now (a new one's days: daily).
    static func prompt(_ field: Int, of reminder: Reminder?, _ view: RemindersView, answers: [String]) -> HomeMode.Prompt {
        let now = [reminder?.time.description ?? "", reminder?.days.description ?? "daily", reminder?.clip?.description ?? ""]
        return HomeMode.Prompt(question: questions[field], text: now[field], purpose: .reminder(reminder, view, answers: answers))
    }

    /// A line answered: the time and the days are read at once (a time or days that are none
    /// said as `cravey remind add` says it, back to the reminders, nothing changed), then the
    /// next question, or the change.
    static func answered(_ text: String, of reminder: Reminder?, _ view: RemindersView, answers: [String],
                         _ state: inout HomeState) -> [HomeEffect] {
        let answers = answers + [text]
        do {
            if answers.count == 1 { _ = try TimeOfDay(parsing: text) }
            if answers.count == 2 { _ = try Weekdays(parsing: text) }
        } catch {
            state.dialog.mode = .reminders(view)
            state.say(error, " Nothing was changed.")
            return []
        }
        guard answers.count == questions.count, let time = try? TimeOfDay(parsing: answers[0]),
              let days = try? Weekdays(parsing: answers[1]) else {
            state.dialog.mode = .prompt(prompt(answers.count, of: reminder, view, answers: answers))
            return []
        }
        state.dialog.mode = .reminders(view)
        return [.saveReminder(Reminder(number: reminder?.number, time: time, days: days), clip: text.trimmingCharacters(in: .whitespaces))]
    }

    /// The answer to "Remove reminder N?": `y` removes it, another key keeps it. A key typed
    /// before the question showed is no answer: it is dropped.
    static func confirm(_ key: Key, removing reminder: Reminder, _ view: RemindersView, _ state: inout HomeState) -> [HomeEffect] {
        guard state.dialog.questionShown else { return [] }
        state.dialog.mode = .reminders(view)
        guard KeyTable.action(for: key, in: .question) == .yes, let number = reminder.number else {
            state.dialog.say("Kept reminder \(reminder.number ?? 0).")
            return []
        }
        return [.removeReminder(number)]
    }

    /// The reminders read (after a change: what to say of it): shown if they still are, the
    /// selection kept within them.
    static func read(_ listing: ReminderListing, said: String?, _ state: inout HomeState) {
        if let said { state.dialog.say(said, warning: said.contains("Warning:") || said.contains("Not active:")) }
        func updated(_ view: RemindersView) -> RemindersView {
            var view = view
            view.listing = listing
            view.selected = max(min(view.selected, listing.items.count - 1), 0)
            return view
        }
        switch state.dialog.mode {
        case .reminders(let view): state.dialog.mode = .reminders(updated(view))
        case .removeReminder(let reminder, let view): state.dialog.mode = .removeReminder(reminder, updated(view))
        case .prompt(var prompt):
            guard case .reminder(let reminder, let view, let answers) = prompt.purpose else { return }
            prompt.purpose = .reminder(reminder, updated(view), answers: answers)
            state.dialog.mode = .prompt(prompt)
        default: break
        }
    }

    /// The reminders shown under the status line's question or prompt, if any.
    static func shown(_ mode: HomeMode) -> RemindersView? {
        switch mode {
        case .reminders(let view), .removeReminder(_, let view): view
        case .prompt(let prompt): if case .reminder(_, let view, _) = prompt.purpose { view } else { nil }
        default: nil
        }
    }

    /// The reminders as lines within `width` columns: a heading, one line each (whether its
    /// timer runs, ● or ○, then its number, time, days, when it fires next and what it offers),
    /// then the notes: none yet, or why they are not active, said once for the reason they share
    /// (no user manager here) and on a line of its own for a reason of one alone.
    static func lines(_ view: RemindersView, width: Int) -> (heading: String, items: [String], notes: [String]) {
        guard let listing = view.listing else { return ("Reminders", [], ["  Reading the reminders…"]) }
        let items = listing.items.map { item in
            let reminder = item.reminder
            return "  " + [item.inactive == nil ? "●" : "○", String(reminder.number ?? 0), reminder.time.description, reminder.days.description,
                           item.when, item.offered].joined(separator: "  ")
        }
        var notes = items.isEmpty ? ["  No reminders yet: a adds one (a time, days, a clip or Quick Play's first)."] : []
        var said = listing.items.compactMap { item in
            item.inactive.flatMap { $0 == listing.notActive ? nil : "○ \(item.reminder.number ?? 0) is not active: \($0)." }
        }
        if let notActive = listing.notActive { said.append("○ not active: \(notActive).") }
        for note in said {
            var rest = note
            while !rest.isEmpty {
                let (first, after) = HomeText.split(rest, width: width - 4)
                notes.append("  " + first)
                rest = after
            }
        }
        return ("Reminders · at these times the desktop offers a clip", items, notes)
    }
}
