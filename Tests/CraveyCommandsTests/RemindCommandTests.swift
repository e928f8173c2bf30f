import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey remind` and its subcommands, run in process (``Outcome``) on real SQLite libraries:
/// what they print, their exit codes and what they change.
@Suite("cravey remind, in process", .temporaryFiles)
struct RemindCommandTests {
    /// cravey's settings file in the test's own configuration folder (`$XDG_CONFIG_HOME`), whose
    /// `systemd/user` the units are written to.
    func settings() -> URL {
        temporaryFolder().appendingPathComponent("config/cravey/settings.toml")
    }

    /// The user's systemd folder beside ``settings()``.
    func units() -> URL {
        temporaryFolder().appendingPathComponent("config/systemd/user")
    }

    /// The outcome of `cravey remind` with `arguments` on the test's own settings.
    func remind(_ arguments: [String]) async throws -> Outcome {
        try await Outcome.of(["remind"] + arguments, settings: settings())
    }

    @Test("remind add, the list and --json, pause --for, resume and remove: each says what it did and changes the library so")
    func addListPauseRemove() async throws {
        // Given a library with a clip
        let library = try await Fixture.library(titles: ["Breathe"])
        let clip = try #require(try library.recordings().first)
        let path = library.url.path
        let empty = try await remind(["--library", path])
        #expect(empty.status == 0 && empty.output.isEmpty && empty.error.contains("No reminders (`cravey remind add"), "\(empty)")

        // When two reminders are added, one offering the clip by a prefix of its id (the library
        // named before the command, as a person may)
        let first = try await Outcome.of(["--library", path, "remind", "add", "6:30pm", "--on", "mon..fri", "--clip", String(clip.id.description.prefix(8))],
                                         settings: settings())
        let second = try await remind(["add", "9:00", "--on", "sat,sun", "--quickplay", "--library", path])

        // Then each says its number, what it offers and when it fires next
        #expect(first.status == 0 && first.error.hasPrefix("Added reminder 1: 18:30 mon..fri, offering \"Breathe\"; next "), "\(first)")
        #expect(second.status == 0 && second.error.hasPrefix("Added reminder 2: 09:00 sat,sun, offering the first of Quick Play; next "), "\(second)")
        let list = try await remind(["--library", path])
        let lines = list.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.map { Array($0.prefix(4)) } == [["1", "18:30", "mon..fri", "\"Breathe\""], ["2", "09:00", "sat,sun", "the first of Quick Play"]], "\(list.output)")
        // (not active: no systemd user manager is reachable from the tests; why is said once, not on each line)
        let absence = try #require(UserManager().absence)
        #expect(lines.allSatisfy { $0.count == 6 && $0[4].hasPrefix("next ") && $0[5] == "not active" }, "\(list.output)")
        #expect(list.error == "Not active: \(absence).\n", "\(list)")

        // And --json lists them as values, when each fires next with them
        let json = try await remind(["list", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["number"] as? Int } == [1, 2])
        #expect(objects[0]["time"] as? String == "18:30" && objects[0]["days"] as? [String] == ["mon", "tue", "wed", "thu", "fri"])
        #expect(objects[0]["clip"] as? String == clip.id.description && objects[1]["clip"] is NSNull)
        #expect(objects.allSatisfy { $0["pausedUntil"] is NSNull && ($0["next"] as? String)?.hasSuffix("Z") == true })
        #expect(objects.allSatisfy { $0["active"] as? Bool == false && $0["inactive"] as? String == absence })

        // When one is paused for three days and every one until resumed, then all are resumed
        let paused = try await remind(["pause", "1", "--for", "3d", "--library", path])
        #expect(paused.status == 0 && paused.error.contains("Paused reminder 1 until ") && paused.error.contains("`cravey remind resume 1` ends it sooner"), "\(paused)")
        let until = try #require(try library.reminders.reminder(1).pausedUntil)
        #expect(abs(until.timeIntervalSinceNow - 3 * 86_400) < 60)
        #expect(try await remind(["--library", path]).output.contains("paused, next "))
        let all = try await remind(["pause", "--library", path])
        #expect(all.status == 0 && all.error.contains("Paused every reminder (2) until `cravey remind resume`."), "\(all)")
        #expect(try await remind(["--library", path]).output.split(separator: "\n").allSatisfy { $0.contains("\tpaused until resumed\t") })
        let resumed = try await remind(["resume", "--library", path])
        #expect(resumed.status == 0 && resumed.error.contains("Resumed reminders 1, 2."), "\(resumed)")
        #expect(try library.reminders.all().allSatisfy { $0.pausedUntil == nil })

        // When one is removed
        let removed = try await remind(["remove", "1", "--library", path])
        #expect(removed.status == 0 && removed.error.contains("Removed reminder 1 (18:30 mon..fri) and its timer."), "\(removed)")
        #expect(try library.reminders.all().map(\.number) == [2])
    }

    @Test("remind refuses a time, days or duration that is none (64), a clip or a reminder number no clip or reminder has (66), --clip with --quickplay (64), naming the fix; nothing changes")
    func refusals() async throws {
        let library = try await Fixture.library(titles: ["Breathe"])
        let path = library.url.path
        _ = try await offPool { try library.reminders.add(Reminder(time: TimeOfDay(parsing: "18:30"))) }
        let cases: [([String], Int32, String)] = [
            (["add", "25:00"], 64, "\"25:00\" is not a time of day: give it on a 24-hour clock (18:30) or with am or pm"),
            (["add", "18:30", "--on", "funday"], 64, "\"funday\" is not a day of the week: give days as mon,tue,..."),
            (["add", "18:30", "--clip", "ffffffff"], 66, "cravey list"),
            (["add", "18:30", "--clip", "ffffffff", "--quickplay"], 64, "Give --clip ID or --quickplay, not both."),
            (["remove", "9"], 66, "There is no reminder 9. `cravey remind` lists them"),
            (["remove", "one"], 64, "one"),
            (["pause", "9"], 66, "There is no reminder 9."),
            (["resume", "9"], 66, "There is no reminder 9."),
            (["pause", "--for", "3 days"], 64, "\"3 days\" is not a duration to pause for: give a number and a unit (m, h, d, w)"),
            (["pause", "--for", "2y"], 64, "is not a duration"),
            (["pause", "--for", "400d"], 64, "at most a year"),
            (["pause", "--for", "0m"], 64, "is not a duration"),
        ]
        for (arguments, status, message) in cases {
            let refused = try await remind(arguments + ["--library", path])
            #expect(refused.status == status && refused.error.contains(message), "\(arguments): \(refused)")
        }
        let left = try await offPool { try library.reminders.all() }
        #expect(left.count == 1 && left[0].pausedUntil == nil)
    }

    @Test("remind and each of its subcommands answer --help, and `cravey --help` lists remind")
    func help() async throws {
        let root = try await Outcome.of(["--help"])
        #expect(root.output.contains("remind"))
        for arguments in [["remind", "--help"], ["help", "remind"], ["remind", "add", "--help"], ["remind", "pause", "--help"], ["help", "remind", "remove"]] {
            let help = try await Outcome.of(arguments)
            #expect(help.status == 0 && help.output.contains("USAGE: cravey remind"), "\(arguments): \(help)")
        }
        #expect(try await remind(["--help"]).output.contains("mon..fri"))
        #expect(try await remind(["pause", "--help"]).output.contains("1d12h"))
    }

    /// The unit files in ``units()``, by name.
    func unitFiles() -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: units().path)) ?? []
        // A link cravey must leave alone reads as "".
        return Dictionary(uniqueKeysWithValues: names.map { ($0, (try? String(contentsOf: units().appendingPathComponent($0), encoding: .utf8)) ?? "") })
    }

    @Test("remind add writes a timer and its service (0600, cravey's mark first) that the real systemd-analyze verify takes; remove removes them; where no user manager runs it says it is not active, why and what starts it")
    func unitsWrittenAndVerified() async throws {
        // Given a library, and no systemd user manager reachable (the tests run none)
        let library = try await Fixture.library(titles: ["Breathe"])
        let path = library.url.path
        let absence = try #require(UserManager().absence, "the tests must reach no user manager: they would enable real timers")

        // When a reminder is added
        let added = try await remind(["add", "18:30", "--on", "mon..fri", "--library", path])

        // Then it says it is not active, why and what starts it
        #expect(added.status == 0 && added.error.contains("Not active: \(absence)."), "\(added)")
        #expect(absence.contains("`cravey remind resume`"))

        // And its two units are in the user's systemd folder, private, marked as cravey's
        let files = unitFiles()
        let timer = try #require(files.keys.first { $0.hasSuffix("-1.timer") })
        let service = try #require(files.keys.first { $0.hasSuffix("-1.service") })
        #expect(files.count == 2 && timer.hasPrefix("cravey-remind-") && service == timer.replacingOccurrences(of: ".timer", with: ".service"))
        for name in [timer, service] {
            let mode = try FileManager.default.attributesOfItem(atPath: units().appendingPathComponent(name).path)[.posixPermissions] as? Int
            #expect(mode == 0o600 && files[name]?.hasPrefix(ReminderUnits.mark + "\n") == true, "\(name)")
        }
        let folderMode = try FileManager.default.attributesOfItem(atPath: units().path)[.posixPermissions] as? Int
        #expect(folderMode == 0o700)
        #expect(files[timer]?.contains("OnCalendar=Mon..Fri *-*-* 18:30:00\nPersistent=true\n") == true)
        #expect(files[service]?.contains(" remind --fire 1 --library \(path)\n") == true, "\(files[service] ?? "")")
        #expect(files.values.allSatisfy { !$0.contains("Breathe") })

        // And systemd itself takes them, as a user's units, without a word
        // (A short runtime folder: the system's own user units name sockets in it, which a long path makes too long.)
        let runtime = URL(fileURLWithPath: "/tmp/cravey-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: runtime) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let verified = try await run("systemd-analyze", ["verify", "--user"] + [timer, service].map { units().appendingPathComponent($0).path },
                                     environment: environment)
        #expect(verified.status == 0 && verified.error.isEmpty && verified.output.isEmpty, "\(verified.status) \(verified.error)")

        // When it is removed, its units go
        let removed = try await remind(["remove", "1", "--library", path])
        #expect(removed.status == 0 && removed.error.contains("and its timer"), "\(removed)")
        #expect(unitFiles().isEmpty)

        // And a library whose folder's name systemd would read otherwise (a space, %, $, a quote,
        // a backslash) is named in quotes, escaped as systemd reads them, and verified too
        let odd = temporaryFolder().appendingPathComponent("my clips 100% $HOME \"x\" \\n")
        #expect(try await remind(["add", "7pm", "--library", odd.path]).status == 0)
        let oddService = try #require(unitFiles().first { $0.key.hasSuffix(".service") })
        #expect(oddService.value.contains(#" remind --fire 1 --library "\#(temporaryFolder().path)/my clips 100%% $$HOME \"x\" \\n""#), "\(oddService.value)")
        let oddVerified = try await run("systemd-analyze", ["verify", "--user", units().appendingPathComponent(oddService.key).path], environment: environment)
        #expect(oddVerified.status == 0 && oddVerified.error.isEmpty, "\(oddVerified.error)")
    }

    @Test("a timer's calendar is what systemd-analyze calendar reads: its next three times are the reminder's next three, for daily, weekdays, weekends, a range across the week's end")
    func calendars() async throws {
        for (time, days) in [("18:30", "mon..fri"), ("9am", "sat,sun"), ("7:05", "daily"), ("23:59", "fri..mon"), ("0:00", "wed")] {
            let reminder = Reminder(time: try TimeOfDay(parsing: time), days: try Weekdays(parsing: days))
            let calendar = ReminderUnits.calendar(reminder)
            let read = try await run("systemd-analyze", ["calendar", "--iterations=3", calendar])
            #expect(read.status == 0 && read.output.contains("Normalized form: \(calendar)\n"), "\(calendar): \(read.output) \(read.error)")
            // "    Next elapse: Mon 2026-12-07 18:30:00 UTC", then "       Iter. #2: ...", in local time
            let elapses = read.output.split(separator: "\n").filter { $0.contains("Next elapse:") || $0.contains("Iter. #") }
                .map { line in line.split(separator: " ").dropFirst(3).prefix(2).joined(separator: " ") }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            var expected: [String] = []
            var after = Date()
            for _ in 0..<3 {
                let next = try #require(reminder.next(after: after))
                expected.append(formatter.string(from: next))
                after = next
            }
            #expect(elapses == expected, "\(calendar)")
        }
    }

    @Test("a unit file of cravey's name that cravey did not write is never overwritten: add and resume exit 64 naming it and the fix, nothing changed; remove leaves it and says so")
    func foreignUnitKept() async throws {
        // Given a reminder, and a person's own file where its timer would be written again
        let library = try await Fixture.library(titles: ["Breathe"])
        let path = library.url.path
        #expect(try await remind(["add", "18:30", "--library", path]).status == 0)
        let timer = try #require(unitFiles().keys.first { $0.hasSuffix(".timer") })
        let mine = "[Timer]\nOnCalendar=daily\n"
        try Data(mine.utf8).write(to: units().appendingPathComponent(timer))

        // When it is resumed (its units written again)
        let resumed = try await remind(["resume", "1", "--library", path])

        // Then it is refused, naming the file and the fix, and the person's file is as it was
        #expect(resumed.status == 64 && resumed.error.contains(units().appendingPathComponent(timer).path)
                && resumed.error.contains("cravey did not write it") && resumed.error.contains("Move it away"), "\(resumed)")
        #expect(unitFiles()[timer] == mine)

        // When a second reminder's timer name is taken by a link, adding it stores nothing
        let second = timer.replacingOccurrences(of: "-1.timer", with: "-2.timer")
        try FileManager.default.createSymbolicLink(atPath: units().appendingPathComponent(second).path, withDestinationPath: "/dev/null")
        let refused = try await remind(["add", "7pm", "--library", path])
        #expect(refused.status == 64 && refused.error.contains(second), "\(refused)")
        #expect(try library.reminders.all().count == 1)
        #expect(unitFiles().keys.filter { $0.contains("-2.") } == [second])

        // When the first is removed, its service goes, the person's timer stays and is named
        let removed = try await remind(["remove", "1", "--library", path])
        #expect(removed.status == 0 && removed.error.contains("left \(units().appendingPathComponent(timer).path) as it is"), "\(removed)")
        #expect(unitFiles()[timer] == mine && !(unitFiles().keys.contains { $0.hasSuffix("-1.service") }))
    }

    @Test("after a restore, the list says a reminder's units are not written, and remind resume writes them")
    func resumeWritesUnits() async throws {
        // Given a library with a reminder whose units are not there (as a restore leaves them)
        let library = try await Fixture.library(titles: ["Breathe"])
        let path = library.url.path
        _ = try await offPool { try library.reminders.add(Reminder(time: TimeOfDay(parsing: "18:30"))) }
        let list = try await remind(["--library", path])
        #expect(list.output.hasSuffix("\tnot active: its systemd units are not written (`cravey remind resume 1` writes them)\n"), "\(list.output)")

        // When it is resumed, its units are written
        let resumed = try await remind(["resume", "--library", path])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(unitFiles().count == 2)
        let after = try await remind(["--library", path]), absence = try #require(UserManager().absence)
        #expect(after.output.hasSuffix("\tnot active\n") && after.error == "Not active: \(absence).\n", "\(after)")
    }
}
