import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey remind` and its subcommands, run in process (``Outcome``) on real SQLite libraries:
/// what they print, their exit codes and what they change.
@Suite("cravey remind, in process", .temporaryFiles)
struct RemindCommandTests {
    @Test("remind add, the list and --json, pause --for, resume and remove: each says what it did and changes the library so")
    func addListPauseRemove() async throws {
        // Given a library with a clip
        let library = try await Fixture.library(titles: ["Breathe"])
        let clip = try #require(try library.recordings().first)
        let path = library.url.path
        let empty = try await Outcome.of(["remind", "--library", path])
        #expect(empty.status == 0 && empty.output.isEmpty && empty.error.contains("No reminders (`cravey remind add"), "\(empty)")

        // When two reminders are added, one offering the clip by a prefix of its id (the library
        // named before the command, as a person may)
        let first = try await Outcome.of(["--library", path, "remind", "add", "6:30pm", "--on", "mon..fri", "--clip", String(clip.id.description.prefix(8))])
        let second = try await Outcome.of(["remind", "add", "9:00", "--on", "sat,sun", "--quickplay", "--library", path])

        // Then each says its number, what it offers and when it fires next
        #expect(first.status == 0 && first.error.hasPrefix("Added reminder 1: 18:30 mon..fri, offering \"Breathe\"; next "), "\(first)")
        #expect(second.status == 0 && second.error.hasPrefix("Added reminder 2: 09:00 sat,sun, offering the first of Quick Play; next "), "\(second)")
        let list = try await Outcome.of(["remind", "--library", path])
        let lines = list.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.map { Array($0.prefix(4)) } == [["1", "18:30", "mon..fri", "\"Breathe\""], ["2", "09:00", "sat,sun", "the first of Quick Play"]], "\(list.output)")
        #expect(lines.allSatisfy { $0.count == 5 && $0[4].hasPrefix("next ") })

        // And --json lists them as values, when each fires next with them
        let json = try await Outcome.of(["remind", "list", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["number"] as? Int } == [1, 2])
        #expect(objects[0]["time"] as? String == "18:30" && objects[0]["days"] as? [String] == ["mon", "tue", "wed", "thu", "fri"])
        #expect(objects[0]["clip"] as? String == clip.id.description && objects[1]["clip"] is NSNull)
        #expect(objects.allSatisfy { $0["pausedUntil"] is NSNull && ($0["next"] as? String)?.hasSuffix("Z") == true })

        // When one is paused for three days and every one until resumed, then all are resumed
        let paused = try await Outcome.of(["remind", "pause", "1", "--for", "3d", "--library", path])
        #expect(paused.status == 0 && paused.error.contains("Paused reminder 1 until ") && paused.error.contains("`cravey remind resume 1` ends it sooner"), "\(paused)")
        let until = try #require(try library.reminders.reminder(1).pausedUntil)
        #expect(abs(until.timeIntervalSinceNow - 3 * 86_400) < 60)
        #expect(try await Outcome.of(["remind", "--library", path]).output.contains("paused, next "))
        let all = try await Outcome.of(["remind", "pause", "--library", path])
        #expect(all.status == 0 && all.error.contains("Paused every reminder (2) until `cravey remind resume`."), "\(all)")
        #expect(try await Outcome.of(["remind", "--library", path]).output.split(separator: "\n").allSatisfy { $0.hasSuffix("paused until resumed") })
        let resumed = try await Outcome.of(["remind", "resume", "--library", path])
        #expect(resumed.status == 0 && resumed.error.contains("Resumed reminders 1, 2."), "\(resumed)")
        #expect(try library.reminders.all().allSatisfy { $0.pausedUntil == nil })

        // When one is removed
        let removed = try await Outcome.of(["remind", "remove", "1", "--library", path])
        #expect(removed.status == 0 && removed.error.contains("Removed reminder 1 (18:30 mon..fri)."), "\(removed)")
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
            let refused = try await Outcome.of(["remind"] + arguments + ["--library", path])
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
        #expect(try await Outcome.of(["remind", "--help"]).output.contains("mon..fri"))
        #expect(try await Outcome.of(["remind", "pause", "--help"]).output.contains("1d12h"))
    }
}
