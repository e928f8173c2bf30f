import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyTerminal

/// The home screen's reminders (`t`), without a terminal: keys in, the screen's text and the
/// effects out, the effects carried out through the door as the shell carries them
/// (``ReminderWork``), on real SQLite libraries and real unit files in the test's own systemd
/// folder (no user manager is reachable from the tests).
@Suite("The home screen's reminders, without a terminal", .temporaryFiles)
struct HomeRemindersTests {
    /// The user's systemd folder of the test.
    func units() -> URL {
        temporaryFolder().appendingPathComponent("config/systemd/user")
    }

    /// The work the shell carries the reminders' effects out with, writing to ``units()``; only
    /// where no user manager is reachable (it would enable real timers).
    func work(_ library: RecordingLibrary) throws -> ReminderWork {
        _ = try #require(UserManager().absence, "the tests must reach no user manager: they would enable real timers")
        return ReminderWork(library: library, settings: AppSettings(showsTitles: false, loudness: -18, transcribesNewClips: false, transcriptionLanguage: nil,
                                                             remindersFolder: units(), program: "/usr/local/bin/cravey"))
    }

    /// Carries out `effects` as the shell does: each change, then the reminders read again, sent
    /// to the screen.
    func carry(_ effects: [HomeEffect], _ home: inout HomeDriver, _ work: ReminderWork) async throws {
        for effect in effects {
            guard let (listing, said) = try await offPool({ try work.perform(effect) }) else { continue }
            home.send(.remindersRead(listing, said: said))
        }
    }

    /// The unit files in ``units()``.
    func unitFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: units().path)) ?? []).sorted()
    }

    /// Where the reminders are drawn: from the Quick Play heading to the player line.
    func shown(_ home: HomeDriver) -> [String] {
        let layout = home.state.view.layout
        return Array(home.lines[(layout.quickPlayHeading ?? layout.quickPlayRows[0])..<layout.player])
    }

    @Test("t lists the reminders (number, time, days, what each offers, when next, not active) with why none is active said once; Esc goes back to the list")
    func listing() async throws {
        // Given a library with a clip and two reminders, one offering the clip, their units written
        let library = try await Fixture.library(titles: ["Breathe"])
        let clip = try #require(try library.recordings().first)
        let work = try work(library)
        var home = try HomeDriver(library)
        try await carry([.saveReminder(Reminder(time: TimeOfDay(parsing: "18:30"), days: .weekdays), clip: clip.id.description),
                         .saveReminder(Reminder(time: TimeOfDay(parsing: "9:00"), days: .weekends), clip: "")], &home, work)
        #expect(unitFiles().count == 4)

        // When t is pressed, and the reminders are read
        let effects = home.press(.character("t"))
        #expect(effects == [.readReminders])
        #expect(shown(home).contains(" Reminders"))
        #expect(shown(home).contains("   Reading the reminders…"))
        try await carry(effects, &home, work)

        // Then each is a line, the first selected, not active (○), and why is said once
        let lines = shown(home)
        #expect(lines[0] == " Reminders · at these times the desktop offers a clip", "\(home.screen)")
        #expect(lines[1].hasPrefix("   ○  1  18:30  mon..fri  next ") && lines[1].hasSuffix("  \"Breathe\""), "\(home.screen)")
        #expect(lines[2].hasPrefix("   ○  2  09:00  sat,sun  next ") && lines[2].hasSuffix("  the first of Quick Play"), "\(home.screen)")
        let firstRow = (home.state.view.layout.quickPlayHeading ?? home.state.view.layout.quickPlayRows[0]) + 1
        #expect(home.frame.pieces.contains { $0.row == firstRow && $0.style == .selected && $0.text.contains("18:30") })
        let absence = try #require(UserManager().absence)
        #expect(home.screen.components(separatedBy: "not active").count == 2, "\(home.screen)")
        let notes = lines.dropFirst(3).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        #expect(notes == "○ not active: \(absence).", "\(home.screen)")
        #expect(home.status == "a add · e change · p pause/resume · d remove · Esc close · ? help")

        // And a reminder whose units are not there (as a restore leaves them) says why on its own line
        _ = try await offPool { try library.reminders.add(Reminder(time: TimeOfDay(parsing: "7:00"))) }
        try await carry([.readReminders], &home, work)
        #expect(shown(home)[3].hasPrefix("   ○  3  07:00  daily  next "), "\(home.screen)")
        let said = shown(home).dropFirst(4).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        #expect(said == "○ 3 is not active: its systemd units are not written (`cravey remind resume 3` writes them). ○ not active: \(absence).",
                "\(home.screen)")

        // And Esc goes back to the list
        home.press(.escape)
        #expect(home.listed == ["Breathe"])
    }

    @Test("a adds a reminder typed on the status line (its time, days and clip); a time or days that are none are refused with remind add's words, nothing changed")
    func adding() async throws {
        // Given a library with a clip, its reminders shown (none)
        let library = try await Fixture.library(titles: ["Breathe"])
        let clip = try #require(try library.recordings().first)
        let work = try work(library)
        var home = try HomeDriver(library)
        try await carry(home.press(.character("t")), &home, work)
        #expect(shown(home).contains { $0.contains("No reminders yet: a adds one") }, "\(home.screen)")

        // When a time that is none is typed
        home.press(.character("a"))
        #expect(home.status == "Time (18:30, 6:30pm):")
        home.type("25:00")
        // Then it is refused with remind add's words, back at the reminders, nothing changed
        #expect(home.press(.enter).isEmpty)
        #expect(home.message == "\"25:00\" is not a time of day: give it on a 24-hour clock (18:30) or with am or pm (6:30pm, 7pm). Nothing was changed.")
        // (said whole: a long message takes the player line too, as on the list)
        #expect(home.playerLine + " " + home.status == home.message)
        #expect(HomeReminders.shown(home.state.dialog.mode) != nil)
        // And days that are none too
        home.press(.character("a"))
        home.type("7pm")
        home.press(.enter)
        #expect(home.status == "Days (mon..fri, sat,sun, weekdays, daily): daily")
        home.press(.control("u"))
        home.type("funday")
        #expect(home.press(.enter).isEmpty)
        #expect(home.message?.hasPrefix("\"funday\" is not a day of the week: give days as mon,tue,...") == true, "\(home.message ?? "")")
        #expect(try library.reminders.all().isEmpty && unitFiles().isEmpty)

        // When a reminder is typed whole: 6:30pm, weekdays, the clip by the start of its id
        home.press(.character("a"))
        home.type("6:30pm")
        home.press(.enter)
        home.press(.control("u"))
        home.type("weekdays")
        home.press(.enter)
        #expect(home.status == "Clip (an id or its start; empty: the first of Quick Play):")
        let prefix = String(clip.id.description.prefix(8))
        home.type(prefix)
        let effects = home.press(.enter)
        #expect(effects == [.saveReminder(Reminder(time: try TimeOfDay(parsing: "18:30"), days: .weekdays), clip: prefix)])
        try await carry(effects, &home, work)

        // Then it is stored, its units written, said, and listed
        #expect(try library.reminders.all().map { [$0.time.description, $0.days.description, $0.clip?.description] } == [["18:30", "mon..fri", clip.id.description]])
        let names = try library.reminders.units(in: units(), program: "cravey").names(1)
        #expect(unitFiles() == [names.service, names.timer].sorted())
        #expect(home.message == "Added reminder 1: 18:30 mon..fri, offering \"Breathe\".")
        #expect(shown(home)[1].hasPrefix("   ○  1  18:30  mon..fri  next ") && shown(home)[1].hasSuffix("\"Breathe\""), "\(home.screen)")
    }

    @Test("e changes the selected reminder (its line filled in), p pauses and resumes it, d asks first: n keeps it, y removes it and its units")
    func changingAndRemoving() async throws {
        // Given a library with one reminder, its units written, shown
        let library = try await Fixture.library(titles: ["Breathe"])
        let work = try work(library)
        var home = try HomeDriver(library)
        try await carry([.saveReminder(Reminder(time: TimeOfDay(parsing: "18:30")), clip: "")], &home, work)
        try await carry(home.press(.character("t")), &home, work)

        // When e changes its time to 7:05 and its days to sat,sun
        home.press(.character("e"))
        #expect(home.status == "Time (18:30, 6:30pm): 18:30")
        home.press(.control("u"))
        home.type("7:05")
        home.press(.enter)
        home.press(.control("u"))
        home.type("sat,sun")
        home.press(.enter)
        #expect(home.status == "Clip (an id or its start; empty: the first of Quick Play):")
        let changed = home.press(.enter)
        #expect(changed == [.saveReminder(Reminder(number: 1, time: try TimeOfDay(parsing: "7:05"), days: .weekends), clip: "")])
        try await carry(changed, &home, work)
        // Then it keeps its number, and its timer says the new times
        #expect(try library.reminders.all().map { "\($0.number ?? 0) \($0.time) \($0.days)" } == ["1 07:05 sat,sun"])
        #expect(home.message == "Changed reminder 1: 07:05 sat,sun, offering the first of Quick Play.")
        let timer = try String(contentsOf: units().appendingPathComponent(unitFiles().first { $0.hasSuffix(".timer") } ?? ""), encoding: .utf8)
        #expect(timer.contains("OnCalendar=Sat,Sun *-*-* 07:05:00"), "\(timer)")

        // When p pauses it, then resumes it
        let paused = home.press(.character("p"))
        #expect(paused == [.pauseReminder(1, resume: false)])
        try await carry(paused, &home, work)
        #expect(try library.reminders.reminder(1).pausedUntil == .distantFuture)
        #expect(shown(home)[1].hasPrefix("   ○  1  07:05  sat,sun  paused until resumed  "), "\(home.screen)")
        let resumed = home.press(.character("p"))
        #expect(resumed == [.pauseReminder(1, resume: true)])
        try await carry(resumed, &home, work)
        #expect(try library.reminders.reminder(1).pausedUntil == nil && home.message == "Resumed reminder 1.")

        // When d asks, and n keeps it
        home.press(.character("d"))
        #expect(home.status == "Remove reminder 1 (07:05 sat,sun) and its timer? [y/N]")
        #expect(home.press(.character("n")).isEmpty)
        #expect(home.message == "Kept reminder 1." && unitFiles().count == 2)
        // Then d and y remove it and its units
        home.press(.character("d"))
        let removed = home.press(.character("y"))
        #expect(removed == [.removeReminder(1)])
        try await carry(removed, &home, work)
        #expect(try library.reminders.all().isEmpty && unitFiles().isEmpty)
        #expect(home.message == "Removed reminder 1 (07:05 sat,sun) and its timer.")
        #expect(shown(home).contains { $0.contains("No reminders yet") })
    }

    @Test("? from the list names t, and from the reminders lists their keys, at 80x24; any key closes it; t on a library not made yet says so")
    func help() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        home.press(.character("?"))
        #expect(home.screen.contains("t reminders"))
        home.press(.character("x"))
        home.press(.character("t"))
        home.press(.character("?"))
        let screen = home.screen
        #expect(screen.contains("Keys of the home screen (any key closes this)"))
        for binding in KeyTable.bindings where binding.context == .reminders {
            #expect(screen.contains("\(binding.name) \(binding.help)"), "\(binding.name) is not in the help:\n\(screen)")
        }
        #expect(screen.contains(KeyBinding.Context.reminders.heading) && !screen.contains(KeyBinding.Context.browsing.heading))
        // Any key closes it, and does nothing else: a does not add
        #expect(home.press(.character("a")).isEmpty)
        #expect(!home.screen.contains("Keys of the home screen") && !home.state.dialog.typesLine)
        #expect(HomeReminders.shown(home.state.dialog.mode) != nil)

        let empty = try RecordingLibrary(at: temporaryFolder().appendingPathComponent("not made"), creating: false)
        var unmade = try HomeDriver(empty)
        #expect(unmade.press(.character("t")).isEmpty)
        #expect(unmade.message == "No reminders: the library is not made yet (r records its first clip).")
    }
}
