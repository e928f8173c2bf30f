import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey play`, `cravey quickplay N` and `cravey devices` on a sink of the test's own
/// (pactl makes it), run in process (``Outcome``): what the sink's monitor recorded (parec) is the
/// witness of what played.
extension PlayCommandTests {
    @Test("play --json plays the tone to the sink for its duration, reports at least 10 times a second, and counts one completed play")
    func playsAndCounts() async throws {
        // Given a library with a 2 s tone
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 2)])])
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When it is played with --json
        let result = try await Outcome.of(["play", ids[0], "--library", library.url.path,
                                           "--device", sink.sinkName, "--json"])
        let samples = try await offPool { try capture.stop() }

        // Then the sink played 2 s of 440 Hz, and stdout has the events and the play
        #expect(result.status == 0, "\(result.error)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.count == 1 && abs((sounding.first?.duration ?? 0) - 2) <= 0.2, "\(sounding)")
        let lines = try jsonLines(result.output)
        let events = lines.dropLast()
        #expect(events.filter { $0["state"] as? String == "playing" }.count >= 20, "\(events.count) events")
        #expect(events.last?["state"] as? String == "completed" && events.last?["duration"] as? Double == 2)
        let play = try #require(lines.last?["play"] as? [String: Any])
        #expect(play["counted"] as? Bool == true && play["completed"] as? Bool == true && play["playCount"] as? Int == 1)
        #expect(try playCount(library, ids[0]) == 1)
        let event = try #require(try library.plays(of: RecordingID(ids[0])!).first)
        #expect(event.completed && abs(event.secondsListened - 2) <= 0.2)
    }

    @Test("--skip-silence jumps over a clip's 4 s of quiet (its stored waveform says where): the sink hears the two tones about half a second apart, and the play says what it skipped")
    func skipsSilence() async throws {
        // Given a clip of 1.5 s of 440 Hz, 4 s of silence and 1.5 s of 880 Hz, imported (which
        // stores its waveform)
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 1.5), (0, 4), (880, 1.5)])])
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When it plays with --skip-silence
        let result = try await Outcome.of(["play", ids[0], "--library", library.url.path, "--device", sink.sinkName,
                                           "--json", "--skip-silence", "--no-count"])
        let samples = try await offPool { try capture.stop() }

        // Then both tones were heard whole, the quiet between them cut to the kept margins (and
        // a seek's start), and the play reports the 3.5 s skipped
        #expect(result.status == 0, "\(result.error)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.map(\.frequency) == [440, 880], "\(sounding)")
        #expect(sounding.allSatisfy { abs($0.duration - 1.5) <= 0.2 }, "\(sounding)")
        if sounding.count == 2 { #expect(sounding[1].start - sounding[0].end < 1.2, "\(sounding)") }
        let play = try #require(try jsonLines(result.output).last?["play"] as? [String: Any])
        let skipped = try #require(play["silenceSkipped"] as? Double)
        #expect(skipped > 3 && skipped <= 3.5, "\(play)")
        #expect(play["completed"] as? Bool == true)
    }

    @Test("--no-count counts nothing; a missing file exits 66, counting nothing (a dead sound server: the CLI's PlayCommandTests)")
    func countsNothing() async throws {
        // Given a library with two clips, the second one's file gone
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 0.5)]), try await Fixture.tones([(440, 0.5)])])
        let path = library.url.path
        try FileManager.default.removeItem(at: library.fileURL(try library.recording(matching: ids[1]).filePath))

        // When each is played
        let preview = try await Outcome.of(["play", ids[0], "--library", path, "--device", sink.sinkName, "--no-count"])
        let missing = try await Outcome.of(["play", ids[1], "--library", path, "--device", sink.sinkName])

        // Then nothing is counted
        #expect(preview.status == 0 && preview.error.contains("not counted"), "\(preview.error)")
        #expect(missing.status == 66 && missing.error.contains("missing") && missing.error.contains("cravey doctor"), "\(missing.error)")
        #expect(try playCount(library, ids[0]) == 0 && playCount(library, ids[1]) == 0)
    }

    @Test("quickplay N plays the Nth most played; an empty library exits 66 and says how to record the first clip")
    func quickPlay() async throws {
        // Given an empty library
        let sink = try await VirtualMicrophone()
        let empty = try await Outcome.of(["--library", temporaryLibrary().path, "quickplay", "1"])
        #expect(empty.status == 66 && empty.error.contains("cravey record"), "\(empty.error)")

        // And a library of three clips with scripted plays: B 3 times, C twice, A once
        var clips: [URL] = []
        for _ in 0..<3 { clips.append(try await Fixture.tones([(440, 0.3)])) }
        let (library, ids) = try await library(clips)
        for (index, plays) in [(1, 3), (2, 2), (0, 1)] {
            for _ in 0..<plays { try library.countPlay(of: RecordingID(ids[index])!, secondsListened: 1, completed: true) }
        }

        // When Quick Play's second clip is played
        let path = library.url.path
        let second = try await Outcome.of(["quickplay", "2", "--library", path, "--device", sink.sinkName, "--json"])
        let beyond = try await Outcome.of(["quickplay", "3", "--library", temporaryLibrary().path, "--device", sink.sinkName])

        // Then C was played and counted, and now leads: as many plays as B, played last
        #expect(second.status == 0, "\(second.error)")
        let play = try #require(try jsonLines(second.output).last?["play"] as? [String: Any])
        #expect(play["id"] as? String == ids[2] && play["playCount"] as? Int == 3)
        let order = try library.quickPlay().map { $0.id.description }
        #expect(order == [ids[2], ids[1], ids[0]])
        #expect(beyond.status == 66)
    }

    @Test("MP3, Opus, FLAC and WAV files imported into the library play their tone for their duration", arguments: [
        ("mp3", ["-c:a", "libmp3lame"]), ("opus", ["-c:a", "libopus"]), ("flac", ["-c:a", "flac"]), ("wav", ["-c:a", "pcm_s16le"]),
    ])
    func formatsPlay(ext: String, codec: [String]) async throws {
        // Given a 1.5 s tone in that format, imported
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 1.5)], ext: ext, codec: codec, channels: 2)])
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When played
        let result = try await Outcome.of(["play", ids[0], "--library", library.url.path, "--device", sink.sinkName])
        let samples = try await offPool { try capture.stop() }

        // Then the sink played 1.5 s of 440 Hz
        #expect(result.status == 0, "\(result.error)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.count == 1 && sounding.first?.frequency == 440, "\(sounding)")
        #expect(abs((sounding.first?.duration ?? 0) - 1.5) <= 0.2, "\(sounding)")
    }

    @Test("devices lists the sinks beside the sources, adding kind and isDefaultSink to the JSON")
    func devicesListSinks() async throws {
        // Given a sink of the test's own
        let sink = try await VirtualMicrophone()

        // When the devices are listed
        let json = try await Outcome.of(["devices", "--json"])
        let table = try await Outcome.of(["devices"])

        // Then the sink is there as a sink, its monitor as a source, and one default of each
        #expect(json.status == 0, "\(json.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let sinkRow = try #require(rows.first { $0["name"] as? String == sink.sinkName })
        #expect(sinkRow["kind"] as? String == "sink" && sinkRow["isDefault"] as? Bool == false)
        let monitor = try #require(rows.first { $0["name"] as? String == sink.monitor })
        #expect(monitor["kind"] as? String == "source" && monitor["isMonitor"] as? Bool == true)
        #expect(rows.filter { $0["isDefault"] as? Bool == true }.count == 1)
        #expect(rows.filter { $0["isDefaultSink"] as? Bool == true }.count == 1)
        #expect(table.output.contains(sink.sinkName) && table.output.hasPrefix("DEFAULT  KIND"))
    }
}
