@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// Reminders as values (a time of day, days of the week, the next time one fires) and as the
/// library keeps them (``LibraryReminders``), on real SQLite libraries.
@Suite("Reminders: times, days, the next firing, and the library's", .temporaryFiles)
struct ReminderTests {
    @Test("times of day are read on a 24-hour clock and with am or pm, and written HH:MM")
    func times() throws {
        let read = try ["18:30", "06:05", "6:05", "7pm", "7:15pm", "7:15 PM", "12am", "12pm", "12:30am", "0:00", "23:59"]
            .map { try TimeOfDay(parsing: $0).description }
        #expect(read == ["18:30", "06:05", "06:05", "19:00", "19:15", "19:15", "00:00", "12:00", "00:30", "00:00", "23:59"])
    }

    @Test("what is no time of day is refused, naming it and the forms a time takes")
    func badTimes() {
        for text in ["25:00", "7:60", "13pm", "0am", "18", "18:3", "18:300", "noon", "", "7:15xm", "-1:00", "18:30:00", "٣:٣٠"] {
            #expect {
                try TimeOfDay(parsing: text)
            } throws: { error in
                let error = error as? CraveyError
                return error?.kind == .invalidInput && error?.message.contains("\"\(text)\" is not a time of day") == true
                    && error?.message.contains("18:30") == true && error?.message.contains("6:30pm") == true
            }
        }
    }

    @Test("days are read as names, ranges (across the week's end too), lists and daily, weekdays, weekends, and written shortest")
    func days() throws {
        let cases: [(String, [Weekdays.Day], String)] = [
            ("mon..fri", [.mon, .tue, .wed, .thu, .fri], "mon..fri"),
            ("sat,sun", [.sat, .sun], "sat,sun"),
            ("daily", Weekdays.Day.allCases, "daily"),
            ("weekdays", [.mon, .tue, .wed, .thu, .fri], "mon..fri"),
            ("Weekends", [.sat, .sun], "sat,sun"),
            ("fri..mon", [.mon, .fri, .sat, .sun], "mon,fri..sun"),
            ("Monday, wed..FRI", [.mon, .wed, .thu, .fri], "mon,wed..fri"),
            ("thurs,tues", [.tue, .thu], "tue,thu"),
            ("sun,mon..sat", Weekdays.Day.allCases, "daily"),
        ]
        for (text, members, written) in cases {
            let days = try Weekdays(parsing: text)
            #expect(days.members == members, "\(text)")
            #expect(days.description == written, "\(text)")
            #expect(try Weekdays(parsing: written) == days)
        }
    }

    @Test("what are no days is refused, naming the part that is not one and the forms days take")
    func badDays() {
        for (text, named) in [("funday", "\"funday\""), ("", "\"\""), ("mon,,fri", "\"\" in \"mon,,fri\""), ("mon..", "\"mon..\""),
                              ("mon..fri..sun", "\"mon..fri..sun\""), ("mon,xyz", "\"xyz\" in \"mon,xyz\""), ("m", "\"m\"")] {
            #expect {
                try Weekdays(parsing: text)
            } throws: { error in
                let error = error as? CraveyError
                return error?.kind == .invalidInput && error?.message.hasPrefix("\(named) is not a day of the week") == true
                    && error?.message.contains("mon..fri") == true && error?.message.contains("daily") == true
            }
        }
    }

    /// The calendar systemd reads `OnCalendar=` in, here a zone with a clock change.
    static let berlin: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return calendar
    }()

    static func date(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.calendar = berlin
        formatter.timeZone = berlin.timeZone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    @Test("the next firing is the first of its days at its time after now, a pause counted, none while paused until resumed; the last is at or before a moment")
    func nextFiring() throws {
        let weekdays = Reminder(time: try TimeOfDay(parsing: "18:30"), days: .weekdays)
        // Friday 4 Dec 2026, before and after the time; Saturday: Monday's.
        #expect(weekdays.next(after: Self.date("2026-12-04 09:00"), calendar: Self.berlin) == Self.date("2026-12-04 18:30"))
        #expect(weekdays.next(after: Self.date("2026-12-04 18:30"), calendar: Self.berlin) == Self.date("2026-12-07 18:30"))
        #expect(weekdays.next(after: Self.date("2026-12-05 10:00"), calendar: Self.berlin) == Self.date("2026-12-07 18:30"))

        // Paused until Tuesday noon: Tuesday's; paused until Tuesday 18:30 exactly: that one too.
        var paused = weekdays
        paused.pausedUntil = Self.date("2026-12-08 12:00")
        #expect(paused.next(after: Self.date("2026-12-05 10:00"), calendar: Self.berlin) == Self.date("2026-12-08 18:30"))
        paused.pausedUntil = Self.date("2026-12-08 18:30")
        #expect(paused.next(after: Self.date("2026-12-05 10:00"), calendar: Self.berlin) == Self.date("2026-12-08 18:30"))
        #expect(paused.isPaused(at: Self.date("2026-12-08 18:00")) && !paused.isPaused(at: Self.date("2026-12-08 18:30")))
        paused.pausedUntil = .distantFuture
        #expect(paused.next(after: Self.date("2026-12-05 10:00"), calendar: Self.berlin) == nil)

        // The last time at or before a moment: the very minute itself, else the one before
        #expect(weekdays.previous(atOrBefore: Self.date("2026-12-04 18:30"), calendar: Self.berlin) == Self.date("2026-12-04 18:30"))
        #expect(weekdays.previous(atOrBefore: Self.date("2026-12-07 09:00"), calendar: Self.berlin) == Self.date("2026-12-04 18:30"))

        // A time the clock skips (2:30 on 29 Mar 2026 in Berlin) fires at the first minute after it.
        let night = Reminder(time: try TimeOfDay(parsing: "2:30"), days: try Weekdays(parsing: "sun"))
        let skipped = try #require(night.next(after: Self.date("2026-03-28 12:00"), calendar: Self.berlin))
        #expect(Self.berlin.dateComponents([.day, .hour], from: skipped) == DateComponents(day: 29, hour: 3))
    }

    /// A library holding one saved clip of a few bytes (the store does not look inside media).
    func libraryWithClip() async throws -> (RecordingLibrary, Recording) {
        let folder = temporaryLibrary()
        return try await offPool {
            let library = try RecordingLibrary(at: folder)
            return (library, try Self.save("Breathe", in: library))
        }
    }

    /// Saves a clip of a few bytes titled `title` into `library`.
    static func save(_ title: String, in library: RecordingLibrary) throws -> Recording {
        let clip = ClipFiles(id: RecordingID(), type: .audio)
        let media = try library.store.create(clip.media(.recording))
        try media.write(Data("media bytes".utf8))
        try media.close()
        return try library.store.write { tx in
            try tx.save(clip.media(.recording), as: Recording(id: clip.id, type: .audio, title: title, createdAt: Date(), duration: 1,
                                                              filePath: "", fileSize: 0))
        }
    }

    @Test("a reminder is kept with its number, pause and clip; numbers are never given again; a clip not in the library is refused")
    func kept() async throws {
        let (library, clip) = try await libraryWithClip()
        try await offPool {
            let reminders = library.reminders
            let first = try reminders.add(Reminder(time: TimeOfDay(parsing: "18:30"), days: .weekdays, clip: clip.id))
            let second = try reminders.add(Reminder(time: TimeOfDay(parsing: "9am"), days: .weekends))
            #expect(first.number == 1 && second.number == 2)
            #expect(try reminders.all() == [first, second])

            // Paused (one for a while, every one until resumed) and resumed
            let until = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try reminders.pause(2, until: until).map(\.pausedUntil) == [until])
            #expect(try reminders.reminder(2).pausedUntil == until)
            _ = try reminders.pause(nil, until: .distantFuture)
            #expect(try reminders.all().allSatisfy { $0.pausedUntil == .distantFuture })
            #expect(try reminders.resume(1).map(\.number) == [1])
            #expect(try reminders.all().map { $0.pausedUntil == nil } == [true, false])

            // A removed reminder's number is not given again
            try reminders.remove(2)
            #expect(try reminders.add(Reminder(time: TimeOfDay(parsing: "7pm"))).number == 3)

            // Refused, nothing changed: a clip the library does not have, a number no reminder has
            let before = try reminders.all()
            #expect(throws: CraveyError.self) { try reminders.add(Reminder(time: TimeOfDay(parsing: "7pm"), clip: RecordingID())) }
            let refusals: [() throws -> Void] = [{ try reminders.remove(9) }, { _ = try reminders.pause(9, until: until) }, { _ = try reminders.resume(9) }]
            for refused in refusals {
                #expect { try refused() } throws: { ($0 as? CraveyError)?.kind == .notFound && "\($0)".contains("`cravey remind` lists them") }
            }
            #expect(try reminders.all() == before)
        }
    }

    @Test("a reminder changed keeps its number and pause, and is offered again for its new times; an unknown number or clip changes nothing")
    func changed() async throws {
        let (library, clip) = try await libraryWithClip()
        try await offPool {
            let reminders = library.reminders
            let added = try reminders.add(Reminder(time: TimeOfDay(parsing: "18:30")))
            _ = try reminders.pause(1, until: .distantFuture)
            _ = try reminders.fire(1, at: Date(timeIntervalSince1970: 1_800_000_000))
            var made: [Reminder] = []
            let changed = try reminders.change(Reminder(number: added.number, time: TimeOfDay(parsing: "7:05"), days: .weekends, clip: clip.id)) {
                made.append($0)
            }
            #expect(changed.number == 1 && changed.time.description == "07:05" && changed.days == .weekends && changed.clip == clip.id)
            #expect(changed.pausedUntil == .distantFuture && changed.offeredFor == nil && made == [changed])
            #expect(try reminders.all() == [changed])

            // Refused, nothing changed: a number no reminder has, a clip the library does not
            // have, and what its maker (its units) throws
            for refused in [Reminder(number: 9, time: try TimeOfDay(parsing: "7pm")), Reminder(number: 1, time: try TimeOfDay(parsing: "7pm"), clip: RecordingID())] {
                #expect { _ = try reminders.change(refused) } throws: { ($0 as? CraveyError)?.kind == .notFound }
            }
            #expect(throws: TestFailure.self) {
                _ = try reminders.change(Reminder(number: 1, time: TimeOfDay(parsing: "7pm"))) { _ in throw TestFailure("its units") }
            }
            #expect(try reminders.all() == [changed])
        }
    }

    @Test("a recording under way is a media file being recorded that a process holds locked; a crash's leftover (no lock) and another file are not")
    func recordingUnderWay() async throws {
        let (library, _) = try await libraryWithClip()
        let reminders = library.reminders
        #expect(!reminders.recordingUnderWay())
        // A crash's leftover: a .partial no process holds
        let partial = reminders.recordings.appendingPathComponent("audio_\(RecordingID()).m4a.partial")
        #expect(FileManager.default.createFile(atPath: partial.path, contents: Data([1, 2, 3])))
        #expect(!reminders.recordingUnderWay())
        // Held by its recorder (a lock another open file description takes, as another process's)
        let held = open(partial.path, O_RDWR | O_CLOEXEC)
        #expect(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        #expect(reminders.recordingUnderWay())
        // Another file held is no recording (an import)
        close(held)
        let importing = reminders.recordings.appendingPathComponent("audio_\(RecordingID()).m4a.importing")
        #expect(FileManager.default.createFile(atPath: importing.path, contents: Data([1])))
        let other = open(importing.path, O_RDWR | O_CLOEXEC)
        defer { close(other) }
        #expect(flock(other, LOCK_EX | LOCK_NB) == 0)
        #expect(!reminders.recordingUnderWay())
        #expect(reminders.recordings.lastPathComponent == "Recordings")
    }

    /// The offer a firing makes; fails for any other outcome.
    func offer(_ firing: LibraryReminders.Firing) throws -> LibraryReminders.Offer {
        guard case .offer(let offer) = firing else { throw TestFailure("not an offer: \(firing)") }
        return offer
    }

    @Test("a reminder whose clip was deleted says so once and offers the first of Quick Play from then on")
    func deletedClip() async throws {
        let (library, clip) = try await libraryWithClip()
        try await offPool {
            let reminders = library.reminders
            let number = try #require(try reminders.add(Reminder(time: TimeOfDay(parsing: "18:30"), clip: clip.id)).number)
            let offered = try offer(reminders.fire(number, at: Self.date("2026-12-04 18:30"), calendar: Self.berlin))
            #expect(offered.recording?.id == clip.id && offered.note == nil)

            // When its clip is deleted, and another one is the first of Quick Play
            _ = try library.delete(clip.id)
            let other = try Self.save("Ten minutes", in: library)

            // Then it says so once, naming the clip, and offers Quick Play's first
            let fallen = try offer(reminders.fire(number, at: Self.date("2026-12-05 18:30"), calendar: Self.berlin))
            #expect(fallen.note?.contains(clip.id.description) == true && fallen.note?.contains("first of Quick Play") == true)
            #expect(fallen.recording?.id == other.id && fallen.reminder.clip == nil)
            let again = try offer(reminders.fire(number, at: Self.date("2026-12-06 18:30"), calendar: Self.berlin))
            #expect(again.note == nil && again.recording?.id == other.id)
            #expect(try reminders.reminder(number).clip == nil)
        }
    }

    @Test("a firing offers once for one time (a late one, as a machine wakes, for the time it missed), nothing while paused; an offer taken back is offered again")
    func firesOncePerTime() async throws {
        let (library, clip) = try await libraryWithClip()
        try await offPool {
            let reminders = library.reminders
            let number = try #require(try reminders.add(Reminder(time: TimeOfDay(parsing: "18:30"), days: .weekdays)).number)

            // Fired at 18:30 on Friday, then again a minute later: the second offers nothing
            #expect(try offer(reminders.fire(number, at: Self.date("2026-12-04 18:30"), calendar: Self.berlin)).recording?.id == clip.id)
            guard case .offered(let time) = try reminders.fire(number, at: Self.date("2026-12-04 18:31"), calendar: Self.berlin) else {
                throw TestFailure("offered twice for one time")
            }
            #expect(time == Self.date("2026-12-04 18:30"))
            // Woken on Tuesday morning after a sleep through Monday's time: one offer, for Monday's
            let late = try offer(reminders.fire(number, at: Self.date("2026-12-08 08:00"), calendar: Self.berlin))
            #expect(late.reminder.offeredFor == Self.date("2026-12-07 18:30"))
            guard case .offered = try reminders.fire(number, at: Self.date("2026-12-08 09:00"), calendar: Self.berlin) else {
                throw TestFailure("offered twice for Monday's time")
            }
            // Paused until Wednesday noon: Tuesday's time offers nothing, Wednesday's does
            _ = try reminders.pause(number, until: Self.date("2026-12-09 12:00"))
            guard case .paused(let until) = try reminders.fire(number, at: Self.date("2026-12-08 18:30"), calendar: Self.berlin) else {
                throw TestFailure("offered while paused")
            }
            #expect(until == Self.date("2026-12-09 12:00"))
            let wednesday = try offer(reminders.fire(number, at: Self.date("2026-12-09 18:30"), calendar: Self.berlin))
            #expect(wednesday.reminder.offeredFor == Self.date("2026-12-09 18:30"))

            // An offer that could not be made (no notification server) is taken back: fired again, it offers
            try reminders.withdraw(wednesday)
            #expect(try reminders.reminder(number).offeredFor == Self.date("2026-12-07 18:30"))
            #expect(try offer(reminders.fire(number, at: Self.date("2026-12-09 18:31"), calendar: Self.berlin)).reminder.offeredFor == Self.date("2026-12-09 18:30"))
        }
    }

    @Test("a reminder's JSON (as --json prints it and a backup keeps it) reads back as the same reminder; one with bad values is refused")
    func json() throws {
        let reminder = Reminder(number: 4, time: try TimeOfDay(parsing: "6:30pm"), days: try Weekdays(parsing: "mon,wed..fri"), clip: RecordingID(),
                                pausedUntil: Date(timeIntervalSince1970: 1_800_000_000))
        for kept in [reminder, Reminder(time: try TimeOfDay(parsing: "7am"), pausedUntil: .distantFuture)] {
            let data = try JSONEncoder().encode(kept)
            #expect(try JSONDecoder().decode(Reminder.self, from: data) == kept)
        }
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(reminder)) as? [String: Any])
        #expect(object["time"] as? String == "18:30" && object["days"] as? [String] == ["mon", "wed", "thu", "fri"])
        #expect(object["pausedUntil"] as? String == "2027-01-15T08:00:00Z")
        for bad in [#"{"time": "25:00", "days": ["mon"], "clip": null, "pausedUntil": null}"#,
                    #"{"time": "18:30", "days": ["someday"], "clip": null, "pausedUntil": null}"#,
                    #"{"time": "18:30", "days": ["mon"], "clip": "not an id", "pausedUntil": null}"#,
                    #"{"time": "18:30", "days": ["mon"], "clip": null, "pausedUntil": "tomorrow"}"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(Reminder.self, from: Data(bad.utf8)) }
        }
    }
}
