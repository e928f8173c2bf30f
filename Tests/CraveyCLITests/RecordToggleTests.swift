import CraveyCommands
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey record --toggle`, the record key for a desktop shortcut: run as the built binary
/// without a terminal, against a real PulseAudio server, a private session bus and a
/// notification server of the tests' own.
@Suite("cravey record --toggle", .temporaryFiles)
struct RecordToggleTests {
    let library = temporaryLibrary()

    @Test("a toggle starts a recording without a terminal and the next stops and saves it; the notifications say so, never its title")
    func startThenStop() async throws {
        // Given a tone at the microphone and a notification server on a session bus
        let bus = try await DesktopSession()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own

        // When a toggle starts a recording, and once 1.5 s are recorded another toggle runs
        let first = try Cravey.start(["record", "--toggle", "--library", library.path, "--device", microphone.monitor,
                                      "--title", "Secret words"], environment: bus.environment)
        try await waitForAudio(in: library, seconds: 1.5)
        let second = try await Cravey.run(["record", "--toggle", "--library", library.path], environment: bus.environment)
        await exit(of: first)

        // Then the second returned once the clip was saved, the first ended cleanly, and the
        // library holds the one clip, as long as what was recorded
        #expect(second.status == 0 && second.error.contains("it is saved"), "\(second.error)")
        #expect(first.terminationStatus == 0)
        let rows = try await listed(library)
        #expect(rows.count == 1 && rows.first?.title == "Secret words")
        #expect((rows.first?.duration ?? 0) >= 1.5)
        #expect(try partials(in: library).isEmpty)
        // The notifications: "Recording", then "Saved a clip (0:0N)." in its place; no title
        let calls = try DesktopSession.calls(in: log).filter { $0["call"] as? String == "Notify" }
        #expect(calls.count == 2, "\(calls)")
        #expect(calls.first?["summary"] as? String == "cravey" && calls.first?["body"] as? String == "Recording", "\(calls)")
        #expect((calls.last?["body"] as? String)?.hasPrefix("Saved a clip (0:0") == true, "\(calls)")
        #expect(!"\(calls)".contains("Secret"), "\(calls)")
        let toggle = library.appendingPathComponent("record.toggle")
        let mode = try FileManager.default.attributesOfItem(atPath: toggle.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a toggle's stop runs in cravey alone (no FFmpeg loaded): a copy of cravey without cravey-media stops and saves the recording; its start needs cravey-media")
    func stopInCraveyAlone() async throws {
        // Given a toggled recording running, and a copy of cravey without cravey-media beside it
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own
        let alone = try await RoutingTests.craveyAlone()
        let started = try await run(alone, ["record", "--toggle", "--library", library.path], environment: Cravey.environment())
        let first = try Cravey.start(["record", "--toggle", "--library", library.path, "--device", microphone.monitor])
        try await waitForAudio(in: library, seconds: 1)

        // When the copy toggles
        let stopped = try await run(alone, ["record", "--toggle", "--library", library.path], environment: Cravey.environment())
        await exit(of: first)

        // Then it stopped the recording, which was saved, whole; with no recording running, the
        // copy had handed the start over (and failed without cravey-media)
        #expect(started.status == 1 && started.error.contains("cravey-media"), "\(started.error)")
        #expect(stopped.status == 0 && stopped.error.contains("it is saved"), "\(stopped.error)")
        #expect(first.terminationStatus == 0)
        let rows = try await listed(library)
        #expect(rows.count == 1 && (rows.first?.duration ?? 0) >= 1, "\(rows)")
        #expect(try partials(in: library).isEmpty)
    }

    @Test("three toggles at once never start two recordings and leave nothing half-done; the next toggle starts again", .timeLimit(.minutes(2)))
    func togglesAtOnce() async throws {
        // Given a tone at the microphone
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own

        // When three toggles start at the same instant
        let toggles = try (0..<3).map { _ in
            try Cravey.start(["record", "--toggle", "--library", library.path, "--device", microphone.monitor])
        }
        // One of them records; the others stop it. On a loaded machine one may start only once
        // that recording is saved (three presses: start, stop, start): it records until a
        // fourth press, which the test makes once every other toggle has ended and the toggle
        // is held again.
        let settled = try await poll(within: 90, every: 0.05) { [library] in
            let running = toggles.filter(\.isRunning)
            return running.isEmpty || (running.count == 1 && RecordToggle.isHeld(in: library))
        }
        #expect(settled, "the toggles did not settle within 90 s: \(toggles.map(\.isRunning))")
        var fourth: CommandResult?
        if settled, toggles.contains(where: \.isRunning) {
            fourth = try await Cravey.run(["record", "--toggle", "--library", library.path])
        }
        for toggle in toggles { await exit(of: toggle) }

        // Then no two recordings ran at once (the clips' times do not overlap: at most two, the
        // second begun after the first ended), none is left half-written, and the library is
        // healthy
        let clips = try await listed(library).sorted { $0.createdAt < $1.createdAt }
        #expect(clips.count <= (fourth == nil ? 1 : 2), "\(clips)")
        if clips.count == 2 {
            #expect(clips[0].createdAt.addingTimeInterval(clips[0].duration) <= clips[1].createdAt.addingTimeInterval(0.05), "\(clips)")
        }
        #expect(fourth.map { $0.status == 0 } ?? true, "\(fourth?.error ?? "")")
        #expect(try partials(in: library).isEmpty)
        let doctor = try await Cravey.run(["doctor", "--library", library.path])
        #expect(doctor.status == 0, "\(doctor.output)\(doctor.error)")

        // When a toggle runs again, it records (the lock was let go), and one more saves it
        let before = try await listed(library).count
        let again = try Cravey.start(["record", "--toggle", "--library", library.path, "--device", microphone.monitor])
        try await waitForAudio(in: library, seconds: 0.5)
        #expect(try await Cravey.run(["record", "--toggle", "--library", library.path]).status == 0)
        await exit(of: again)
        #expect(again.terminationStatus == 0)
        #expect(try await listed(library).count == before + 1)
    }

    @Test("a toggled recording killed outright is recovered by doctor --repair like any other, and the next toggle records again", .timeLimit(.minutes(2)))
    func killedToggle() async throws {
        // Given a toggled recording with 1.5 s of a tone in its file
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own
        let first = try Cravey.start(["record", "--toggle", "--library", library.path, "--device", microphone.monitor])
        try await waitForAudio(in: library, seconds: 1.5)

        // When it is killed (SIGKILL: no save), then the library is repaired
        kill(first.processIdentifier, SIGKILL)
        await exit(of: first)
        let repaired = try await Cravey.run(["doctor", "--repair", "--library", library.path])

        // Then the clip is registered with what was recorded, and nothing is left half-done
        #expect(repaired.status == 0, "\(repaired.output)\(repaired.error)")
        let rows = try await listed(library)
        #expect(rows.count == 1 && (rows.first?.duration ?? 0) >= 1, "\(rows)")
        #expect(try partials(in: library).isEmpty)

        // And the toggle went with the killed process: the next one records, and one more saves it
        let again = try Cravey.start(["record", "--toggle", "--library", library.path, "--device", microphone.monitor])
        try await waitForAudio(in: library, seconds: 0.5)
        #expect(try await Cravey.run(["record", "--toggle", "--library", library.path]).status == 0)
        await exit(of: again)
        #expect(again.terminationStatus == 0)
        #expect(try await listed(library).count == 2)
    }

    @Test("a record.toggle that is a link is refused (exit 73), and what it points at is never touched")
    func toggleFileThatIsALink() async throws {
        // Given a library whose record.toggle is a link to a file outside it
        _ = try RecordingLibrary(at: library)
        let outside = temporaryFolder().appendingPathComponent("outside.txt")
        try Data("not cravey's".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(at: library.appendingPathComponent("record.toggle"), withDestinationURL: outside)

        // When a toggle runs
        let result = try await Cravey.run(["record", "--toggle", "--library", library.path, "--device", "nope"])

        // Then it is refused, naming the file and the fix, and the file outside is as it was
        #expect(result.status == 73, "\(result.error)")
        #expect(result.error.contains("record.toggle") && result.error.contains("Remove it"))
        #expect(try String(contentsOf: outside, encoding: .utf8) == "not cravey's")
    }
}
