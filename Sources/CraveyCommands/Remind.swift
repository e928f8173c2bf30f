import ArgumentParser
import CraveyCore
import Foundation

/// `cravey remind [--json]` lists the reminders to listen; `remind add`, `remove`, `pause` and
/// `resume` change them (``LibraryReminders``). `remind --fire N`, what a reminder's timer runs,
/// is `cravey-media`'s (``MediaCommand/remind``): it offers the clip on the desktop.
struct Remind: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be offered a clip at the hours that are hard: list reminders, or add, remove, pause or resume one.",
        discussion: """
            A reminder is a time of day and days of the week at which the desktop offers a clip: \
            the one --clip names, or the first of Quick Play as it is then (the default). \
            `cravey remind add 18:30 --on mon..fri` adds one; `cravey remind` lists them, each \
            with its number, time, days, clip and the next time it fires (--json: an array of \
            {"number", "time": "18:30", "days": ["mon", ...], "clip": id or null, \
            "pausedUntil": ISO 8601, "forever" or null, "next": ISO 8601 or null, "active": \
            whether its timer runs, "inactive": why not, or null}). \
            `remind remove N` removes one; `remind pause [N] [--for DURATION]` keeps one (or \
            every one) quiet for a while, or until `remind resume [N]`.

            A time is on a 24-hour clock (18:30, 06:30) or with am or pm (6:30pm, 7pm). Days are \
            names (mon, monday), ranges (mon..fri, fri..mon), lists of either (mon,wed..fri), \
            or daily, weekdays, weekends; by default every day. A duration is a number and a \
            unit, or several: 30m, 2h, 3d, 1w, 1d12h. A time, days or a duration that is none \
            exits 64; a number no reminder has, or a clip no clip is, 66; nothing changes.

            Each reminder is made real as a systemd user timer (OnCalendar= its days and time, \
            Persistent=true: a time missed while the machine slept fires when it wakes) and the \
            service it starts, `cravey remind --fire N --library PATH`, written to \
            $XDG_CONFIG_HOME/systemd/user (~/.config/systemd/user) as \
            cravey-remind-<library>-<N>.timer and .service (<library>: 8 characters of the \
            library's identity), mode 0600, then reloaded and enabled (`systemctl --user \
            enable --now`); `remove` disables and removes them, and so does `scripts/install \
            --uninstall`. cravey knows a unit file is its own by its first line ("# Written by \
            cravey"): a file of one of those names without it is never overwritten or removed \
            (`add` and `resume` then exit 64, changing nothing). Where no systemd user manager \
            runs (a container, a machine whose first process is not systemd, no login session), \
            the reminder and its units are made all the same, and the list says it is not active, \
            why, and what starts it (`cravey remind resume`, once a manager runs, which also \
            writes the units of reminders a restore brought back).

            At its time, `cravey remind --fire N` offers the clip: a desktop notification saying \
            "Time for your clip" (its title only with desktop.show-titles) with Play (it plays \
            as `cravey quickplay` does, and is counted), In 10 minutes (asked again then; \
            `--fire N --later SECONDS` asks again sooner, to try one out) and \
            Not today (quiet until tomorrow). It offers once for each of its times (a machine \
            waking from a day's sleep offers once), nothing while paused, and waits for a clip \
            cravey plays and a recording under way to end (until its next time at most); with no session bus or \
            no notification server it offers nothing, says why on stderr (the journal) and exits 69.

            The home screen's t lists them too, and adds, changes, pauses, resumes and removes \
            them (`cravey help home`).

            Reminders are kept in the library, so a backup carries them and a restore brings \
            them back. A reminder whose clip is deleted later says so once when it fires and \
            offers the first of Quick Play from then on.
            """,
        subcommands: [List.self, Add.self, Remove.self, Pause.self, Resume.self],
        defaultSubcommand: List.self)

    /// `cravey remind [list] [--json]`.
    struct List: SettingsReading {
        static let configuration = CommandConfiguration(abstract: "List the reminders (what `cravey remind` alone does).")

        @OptionGroup var options: LibraryOptions
        @Flag(help: "Print the reminders as JSON.") var json = false

        func run(with settings: Settings) throws {
            let library = try options.open()
            let listing = try ReminderListing(library, units: try Remind.units(library, settings))
            if json { return try Terminal.printJSON(listing.items) }
            guard !listing.items.isEmpty else {
                return Terminal.diagnostic("No reminders (`cravey remind add 18:30 --on mon..fri` adds one).")
            }
            let lines = listing.items.map { item in
                let reminder = item.reminder
                return [String(reminder.number ?? 0), reminder.time.description, reminder.days.description, item.offered, item.when,
                        item.activity(sharing: listing.notActive)].compactMap { $0 }.joined(separator: "\t")
            }
            try Terminal.output(lines.joined(separator: "\n"))
            // Why none is active here, once for them all.
            if let notActive = listing.notActive { Terminal.diagnostic("Not active: \(notActive).") }
        }
    }

    /// The units of `library`'s reminders, in the systemd folder beside cravey's settings'
    /// (`$XDG_CONFIG_HOME/systemd/user`), running the `cravey` beside this executable.
    static func units(_ library: RecordingLibrary, _ settings: Settings) throws -> ReminderUnits {
        let configuration = settings.url.deletingLastPathComponent().deletingLastPathComponent()
        return try library.reminders.units(in: ReminderUnits.folder(in: configuration), program: CommandRoute.installed(.cravey))
    }

    /// Reloads the user manager's units and enables and starts `reminders`' timers; says on
    /// stderr why they are not active where no manager runs or systemctl fails.
    static func start(_ reminders: [Reminder], _ units: ReminderUnits) {
        guard let failed = units.start(reminders) else { return }
        Terminal.diagnostic(units.manager.absence == failed ? "Not active: \(failed)." : "cravey: warning: not active: \(failed)")
    }

    /// `cravey remind add TIME [--on DAYS] [--clip ID | --quickplay]`.
    struct Add: SettingsReading {
        static let configuration = CommandConfiguration(
            abstract: "Add a reminder: at TIME on DAYS, offer a clip (--clip) or the first of Quick Play.",
            discussion: """
                TIME is 18:30, 06:30, 6:30pm or 7pm; --on takes mon..fri, sat,sun, \
                mon,wed..fri, daily (the default), weekdays or weekends. It prints the \
                reminder's number, which `remove`, `pause` and `resume` take.
                """)

        @Argument(help: ArgumentHelp("The time of day: 18:30, or 6:30pm.", valueName: "time")) var time: String
        @Option(help: ArgumentHelp("The days: mon..fri, sat,sun, daily (the default), weekdays, weekends.", valueName: "days"))
        var on: String = "daily"
        @Option(help: ArgumentHelp("The clip to offer, by id or a unique prefix of it.", valueName: "id")) var clip: String?
        @Flag(help: "Offer the first of Quick Play as it is when it fires (the default).") var quickplay = false
        @OptionGroup var options: LibraryOptions

        func validate() throws {
            if clip != nil, quickplay { throw ValidationError("Give --clip ID or --quickplay, not both.") }
        }

        func run(with settings: Settings) throws {
            // Read before anything is opened: a time or days refused change nothing.
            var reminder = Reminder(time: try TimeOfDay(parsing: time), days: try Weekdays(parsing: on))
            let library = try options.open(creating: true)
            if let clip { reminder.clip = try library.recording(matching: clip).id }
            let units = try Remind.units(library, settings)
            // Its units written before it is stored: a file of their names cravey did not write stores nothing.
            let added = try library.reminders.add(reminder, making: units.write)
            Terminal.diagnostic("Added reminder \(added.number ?? 0): \(added.time) \(added.days), offering \(try ReminderListing.offered(added, in: library)); \(ReminderListing.when(added, now: Date())).")
            Remind.start([added], units)
        }
    }

    /// `cravey remind remove N`.
    struct Remove: SettingsReading {
        static let configuration = CommandConfiguration(abstract: "Remove a reminder, by the number `cravey remind` lists it with.")

        @Argument(help: ArgumentHelp("The reminder's number.", valueName: "n")) var number: Int64
        @OptionGroup var options: LibraryOptions

        func run(with settings: Settings) throws {
            let library = try options.open()
            let units = try Remind.units(library, settings)
            let removed = try library.reminders.remove(number)
            for warning in units.unmake(number) { Terminal.diagnostic("cravey: warning: \(warning)") }
            Terminal.diagnostic("Removed reminder \(number) (\(removed.time) \(removed.days)) and its timer.")
        }
    }

    /// `cravey remind pause [N] [--for DURATION]`.
    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a reminder (or every one) quiet for a while (--for), or until `cravey remind resume`.",
            discussion: "DURATION is a number and a unit (m, h, d, w), or several: 30m, 2h, 3d, 1w, 1d12h.")

        @Argument(help: ArgumentHelp("The reminder's number (every reminder when left out).", valueName: "n")) var number: Int64?
        @Option(name: .customLong("for"), help: ArgumentHelp("How long: 30m, 2h, 3d, 1w, 1d12h (until resumed when left out).", valueName: "duration"))
        var duration: String?
        @OptionGroup var options: LibraryOptions

        func run() throws {
            let until = try duration.map { Date().addingTimeInterval(try Self.seconds(in: $0)) } ?? .distantFuture
            let paused = try options.open().reminders.pause(number, until: until)
            let which = number.map { "reminder \($0)" } ?? (paused.count == 1 ? "the reminder" : "every reminder (\(paused.count))")
            guard !paused.isEmpty else { return Terminal.diagnostic("No reminders to pause.") }
            let resume = "`cravey remind resume\(number.map { " \($0)" } ?? "")`"
            Terminal.diagnostic(until == .distantFuture ? "Paused \(which) until \(resume)."
                                                         : "Paused \(which) until \(Format.date(until)) (\(resume) ends it sooner).")
        }

        /// The seconds in a duration as typed: `30m`, `2h`, `3d`, `1w`, `1d12h`, at most a year.
        /// Throws `.invalidInput` naming it and the forms it takes.
        static func seconds(in text: String) throws -> TimeInterval {
            let units: [Character: TimeInterval] = ["m": 60, "h": 3600, "d": 86_400, "w": 604_800]
            var total: TimeInterval = 0
            var digits = ""
            for character in text.lowercased() {
                if character.isASCII, character.isNumber {
                    digits.append(character)
                } else if let unit = units[character], let count = Int(digits), digits.count <= 6 {
                    total += TimeInterval(count) * unit
                    digits = ""
                } else {
                    digits = "x"
                    break
                }
            }
            guard digits.isEmpty, total > 0, total <= 366 * 86_400 else {
                throw CraveyError(.invalidInput, "\(CraveyError.quoted(text, "\"")) is not a duration to pause for: give a number and a unit (m, h, d, w), or several, as 30m, 2h, 3d, 1w or 1d12h, at most a year; leave --for out to pause until `cravey remind resume`.")
            }
            return total
        }
    }

    /// `cravey remind resume [N]`.
    struct Resume: SettingsReading {
        static let configuration = CommandConfiguration(
            abstract: "End a reminder's pause (every reminder's when N is left out), and start its timer.",
            discussion: """
                Its systemd units are written again (those a restore brought back, or a person \
                removed) and its timer enabled and started where a user manager runs.
                """)

        @Argument(help: ArgumentHelp("The reminder's number (every reminder when left out).", valueName: "n")) var number: Int64?
        @OptionGroup var options: LibraryOptions

        func run(with settings: Settings) throws {
            let library = try options.open()
            let units = try Remind.units(library, settings)
            // The units first: a file of their names cravey did not write resumes nothing.
            let chosen = try number.map { [try library.reminders.reminder($0)] } ?? library.reminders.all()
            for reminder in chosen { try units.write(reminder) }
            let resumed = try library.reminders.resume(number)
            guard !resumed.isEmpty else { return Terminal.diagnostic("No reminders to resume (`cravey remind add` adds one).") }
            Terminal.diagnostic("Resumed reminder\(resumed.count == 1 ? "" : "s") \(resumed.compactMap(\.number).map(String.init).joined(separator: ", ")).")
            Remind.start(resumed, units)
        }
    }
}
