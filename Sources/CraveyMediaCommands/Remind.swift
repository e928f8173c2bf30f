import ArgumentParser
import CraveyCommands
import CraveyKit
import CraveyTerminal
import Foundation

/// Runs `cravey remind --fire N` (what a reminder's systemd service runs, at its time): offers
/// the reminder's clip on the desktop, a notification with Play, In 10 minutes and Not today.
/// `cravey` hands `remind` over here when `--fire` is given; the rest of `remind` (``Remind``)
/// runs in `cravey`.
struct RemindMedia: AsyncSettingsReading {
    static let configuration = CommandConfiguration(
        commandName: "remind",
        abstract: "Offer a reminder's clip on the desktop now (what its systemd timer runs).",
        discussion: """
            Once for each of its times: a second firing for the same time, or a firing while \
            it is paused, offers nothing. A clip cravey plays and a recording under way are never \
            interrupted: the question waits until they end (until the reminder's next time at most). The notification says "Time for your clip" (the \
            clip's title only with desktop.show-titles). Play plays it as `cravey quickplay` \
            does and counts the play; In 10 minutes asks again 10 minutes later (--later \
            changes how long, and the button says so: to try a reminder out); Not today \
            pauses it until tomorrow. Unanswered, it goes after an hour. With no session bus or \
            no notification server it offers nothing, says why on stderr (the journal, under \
            systemd) and exits 69.
            """)

    @Option(help: ArgumentHelp("The reminder's number.", valueName: "n")) var fire: Int64
    @Option(help: ArgumentHelp("How long In 10 minutes waits before asking again, in seconds (1 to 86400; the button says it).",
                               valueName: "seconds"))
    var later: Int = 600
    @OptionGroup var options: LibraryOptions

    /// How long an unanswered notification waits.
    static let waiting = 3600.0

    func validate() throws {
        guard (1...86_400).contains(later) else {
            throw ValidationError("--later \(later) is not a wait before asking again: give seconds from 1 to 86400 (600, the default, is 10 minutes).")
        }
    }

    func run(with settings: Settings) async throws {
        let library = try options.open()
        let offer: LibraryReminders.Offer
        switch try library.reminders.fire(fire) {
        case .paused(let until):
            let end = until == .distantFuture ? "until it is resumed (`cravey remind resume \(fire)`)" : "until \(Format.date(until))"
            return Terminal.diagnostic("Reminder \(fire) is paused \(end): nothing offered.")
        case .offered(let time):
            return Terminal.diagnostic("Reminder \(fire) was offered for \(Format.date(time)) already: nothing offered.")
        case .offer(let made):
            offer = made
        }
        if let note = offer.note { Terminal.diagnostic(note) }
        guard let recording = offer.recording else {
            return Terminal.diagnostic("Reminder \(fire) has nothing to offer: the library has no clip yet (`cravey record` makes one).")
        }
        let body = settings.showsTitles ? "Time for \"\(Format.visible(recording.title))\"" : "Time for your clip"
        while true {
            let answer: ReminderPrompt.Answer
            do {
                // A clip playing or a recording under way is waited for, until the reminder's next time at most.
                let next = offer.reminder.next(after: Date()) ?? Date().addingTimeInterval(86_400)
                answer = try await ReminderPrompt.ask(body, waitingAtMost: Self.waiting, playsUntil: next, library: library, later: later)
            } catch {
                // Not offered: a later firing for the same time offers it.
                try? library.reminders.withdraw(offer)
                throw error
            }
            switch answer {
            case .play:
                Terminal.diagnostic("Reminder \(fire): playing its clip.")
                return try await Player(library: library, flags: PlayerFlags(), settings: settings.app, json: false).play(recording)
            case .later:
                Terminal.diagnostic("Reminder \(fire): asking again in \(ReminderPrompt.laterText(later)).")
                try await Task.sleep(for: .seconds(later))
            case .notToday:
                let tomorrow = Calendar.current.startOfDay(for: Date().addingTimeInterval(86_400))
                _ = try library.reminders.pause(fire, until: tomorrow)
                return Terminal.diagnostic("Reminder \(fire): not today; quiet until \(Format.date(tomorrow)).")
            case .dismissed, .none:
                return Terminal.diagnostic("Reminder \(fire): closed without an answer.")
            case .playing:
                return Terminal.diagnostic("Reminder \(fire): a clip played or a recording was under way until its next time, so it was not offered.")
            }
        }
    }
}
