import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Runs the built `cravey` binary against a real PulseAudio server and checks stdout, stderr,
/// exit codes and the files it leaves. (Its refusals of a title too long and an unknown device:
/// CraveyCommandsTests' RecordCommandTests.)
@Suite("cravey record", .temporaryFiles)
struct RecordCommandTests {
    let library = temporaryLibrary()

    func listed() async throws -> [Recording] {
        try await CraveyCLITests.listed(library)
    }

    @Test("records 2 s of a 440 Hz tone, prints the id, and `list --json` shows the row")
    func recordsAndLists() async throws {
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own

        let result = try await Cravey.run(["record", "--library", library.path, "--seconds", "2",
                                     "--device", microphone.monitor, "--title", "Don't Do It", "--purpose", "craving"])
        #expect(result.status == 0, "\(result.error)")
        let id = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(RecordingID(id) != nil, "stdout is the new id: \(result.output)")

        let rows = try await listed()
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.id.description == id)
        #expect(row.title == "Don't Do It")
        #expect(row.purpose == .craving)
        #expect(row.type == .audio)
        #expect(row.duration == 2)
        #expect(row.filePath == "Recordings/audio_\(id).m4a")
        let file = library.appendingPathComponent(row.filePath)
        #expect(row.fileSize == (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64))
        let probe = try await Witness.ffprobe(file)
        #expect(probe.audioCodec == "aac" && abs(probe.duration - 2) <= 0.1)
        #expect(abs(Witness.dominantFrequency(try await Witness.decodeAudio(file)) - 440) <= 5)

        // Private: folders 0700, files 0600.
        for folder in [library, library.appendingPathComponent("Recordings")] {
            #expect(try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int == 0o700)
        }
        for path in [file.path, library.appendingPathComponent("library.sqlite").path] {
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        }
    }

    @Test("--json prints the whole record with every field, nulls included")
    func jsonRecord() async throws {
        let microphone = try await VirtualMicrophone()
        let result = try await Cravey.run(["record", "--library", library.path, "--seconds", "0.5",
                                     "--device", microphone.monitor, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["id", "type", "title", "notes", "purpose", "createdAt", "duration", "filePath",
                                     "thumbnailPath", "fileSize", "playCount", "lastPlayedAt", "pinnedSlot", "tags", "markers"])
        #expect(object["purpose"] is NSNull && object["lastPlayedAt"] is NSNull && object["pinnedSlot"] is NSNull)
        #expect((object["title"] as? String)?.hasPrefix("Recording ") == true)
        #expect(ISO8601DateFormatter().date(from: object["createdAt"] as? String ?? "") != nil)
    }

    @Test("devices lists the server's sources, a virtual microphone's monitor among them")
    func devices() async throws {
        let microphone = try await VirtualMicrophone()
        let result = try await Cravey.run(["devices", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let sources = try JSONDecoder().decode([AudioDevice].self, from: Data(result.output.utf8))
        let monitor = try #require(sources.first { $0.name == microphone.monitor })
        #expect(monitor.isMonitor)
        #expect(sources.filter(\.isDefault).count == 1)
        let table = try await Cravey.run(["devices"])
        #expect(table.output.contains(microphone.monitor) && table.output.hasPrefix("DEFAULT"))
        let noServer = try await Cravey.run(["devices"], environment: ["PULSE_SERVER": "unix:/nonexistent/cravey-test/native"])
        #expect(noServer.status == 69 && noServer.error.contains("No sound server"))
    }

    @Test("SIGINT (Ctrl-C) and SIGTERM are clean stops: exit 0, the clip is saved as a normal MP4",
          arguments: [SIGINT, SIGTERM])
    func interruptSaves(signal: Int32) async throws {
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own
        let process = try Cravey.start(["record", "--library", library.path, "--device", microphone.monitor])
        try await waitForAudio(in: library, seconds: 1.5)
        kill(process.processIdentifier, signal)
        await exit(of: process)
        #expect(process.terminationStatus == 0)
        let row = try #require(try await listed().first)
        #expect(row.duration > 1)
        let probe = try await Witness.ffprobe(library.appendingPathComponent(row.filePath))
        #expect(abs(probe.duration - row.duration) < 0.1)
        #expect(try partials(in: library).isEmpty)
    }

    @Test("kill -9 mid-recording leaves a .partial that ffprobe and the library read, within 1 s of the audio captured")
    func killedRecordingIsReadable() async throws {
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own
        // On a terminal the meter shows the audio captured so far, counted in samples by cravey
        // itself: a clock in the test would also count the time the machine kept either waiting.
        let terminal = try Cravey.startOnTerminal(["record", "--library", library.path, "--device", microphone.monitor])
        let recording = try await offPool { terminal.waitUntilShown(within: 20) { (capturedSeconds(shownOn: $0) ?? 0) >= 3 } }
        kill(terminal.process.processIdentifier, SIGKILL)
        let shown = try await offPool { terminal.waitForExit() }
        try #require(recording, "the meter never reached 0:03.0: \(shown.debugDescription)")
        let captured = try #require(capturedSeconds(shownOn: shown))

        let partial = try #require(try partials(in: library).first)
        let probe = try await Witness.ffprobe(partial)
        #expect(probe.audioCodec == "aac")
        #expect(abs(probe.duration - captured) <= 1.0, "probed \(probe.duration) s of \(captured) s captured")
        #expect(abs(try MediaProbe.duration(of: .outside(partial)) - probe.duration) < 0.05)
        #expect(abs(Witness.dominantFrequency(try await Witness.decodeAudio(partial)) - 440) <= 5)
    }
}

/// The audio captured so far as the live meter last showed it ("● 0:03.4 ▁▃▅█▇▅ -6.0 dBFS").
func capturedSeconds(shownOn terminal: String) -> Double? {
    guard let clock = terminal.matches(of: #/(\d+):(\d\d)\.(\d) /#).last else { return nil }
    return Double(clock.1)! * 60 + Double(clock.2)! + Double(clock.3)! / 10
}

/// The library's recordings as `cravey list --json` prints them.
func listed(_ library: URL) async throws -> [Recording] {
    let list = try await Cravey.run(["list", "--json", "--library", library.path])
    #expect(list.status == 0, "\(list.error)")
    return try Recording.jsonDecoder().decode([Recording].self, from: Data(list.output.utf8))
}

/// The recordings still being written (or cut off) in a library.
func partials(in library: URL) throws -> [URL] {
    let folder = library.appendingPathComponent("Recordings")
    return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        .filter { $0.lastPathComponent.hasSuffix(".partial") }
}

/// Waits until the recording's file holds `seconds` of audio, as ffprobe reads its fragments.
func waitForAudio(in library: URL, seconds: Double) async throws {
    let arrived = try await poll(within: 10 + seconds, every: 0.05) {
        guard let partial = try? partials(in: library).first,
              let audio = try? Witness.readStreams(partial).first(where: { $0.kind == "audio" }) else { return false }
        return audio.duration >= seconds
    }
    guard arrived else { throw TestFailure("\(seconds) s of audio did not reach \(library.path) within \(10 + seconds) s") }
}
