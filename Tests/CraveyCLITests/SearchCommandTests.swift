import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey search`, run as a person runs it: a word said in a clip found at the time it is said
/// (the checkout's real transcriber on espeak-ng's speech). (No match, folded accents and
/// --limit: CraveyCommandsTests' SearchCommandTests; a bad query: UsageErrorTests.)
@Suite("The search command", .temporaryFiles)
struct SearchCommandTests {
    /// The JSON array `--json` printed.
    func found(_ output: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], "\(output)")
    }

    @Test("a word said in a clip is found at the time it is said, with a snippet marking it, by the real transcriber's words")
    func spokenWordAtItsTime() async throws {
        // Given a clip of two phrases, the second said after a pause, transcribed
        let environment = try Speech.environment()
        let (speech, starts) = try await Speech.clip(["Good morning.", "Lighthouse keepers count the boats."], lead: 0.5, gap: 1.5)
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", speech.path, "--title", "Harbour", "--json", "--library", library.path])
        try #require(imported.status == 0, "\(imported.error)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(imported.output.utf8)) as? [String: Any])?["id"] as? String)
        let transcribed = try await Cravey.run(["transcribe", id, "--library", library.path], environment: environment)
        try #require(transcribed.status == 0, "\(transcribed.error)")

        // When the word is searched for, by a prefix, in capitals
        let result = try await Cravey.run(["search", "LIGHTH*", "--json", "--library", library.path])

        // Then the clip is found with every field of the list's JSON, and the match at the word's time
        #expect(result.status == 0, "\(result.error)")
        let clips = try found(result.output)
        #expect(clips.count == 1 && clips.first?["id"] as? String == id && clips.first?["title"] as? String == "Harbour")
        #expect(["type", "createdAt", "duration", "filePath", "playCount", "tags", "markers"].allSatisfy { clips.first?[$0] != nil })
        let match = try #require(clips.first?["match"] as? [String: Any])
        let at = try #require(match["at"] as? Double, "\(match)")
        #expect(abs(at - starts[1]) < 0.3, "lighthouse found at \(at) s, said at \(starts[1]) s")
        #expect(match["field"] as? String == "words")
        #expect((match["snippet"] as? String)?.lowercased().contains("[lighthouse") == true, "\(match)")
        // And as a table: the id, the title, the time as play --from takes it, the snippet
        let table = try await Cravey.run(["search", "lighthouse", "--library", library.path])
        #expect(table.status == 0 && table.output.contains(String(id.prefix(8))) && table.output.contains("0:0"), "\(table.output)")
        #expect(table.output.lowercased().contains("[lighthouse"), "\(table.output)")
    }
}

/// `cravey play --from TIME`, heard on the sink's monitor.
// Named *PlaybackTests: scripts/test runs it with the real-time suites, one test at a time.
@Suite("play --from", .temporaryFiles, .serialized)
struct SearchPlaybackTests {
    @Test("play --from 0:01.5 starts there: the sink hears only the second tone; past the end exits 64 and plays nothing")
    func playFrom() async throws {
        // Given a clip of 1.5 s of 440 Hz then 1.5 s of 880 Hz
        let sink = try await VirtualMicrophone()
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", folder.path, try await Fixture.tones([(440, 1.5), (880, 1.5)]).path])
        try #require(imported.status == 0, "\(imported.error)")
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)

        // When it plays from 0:01.5
        let capture = try await SinkCapture.start(sink: sink.sinkName)
        let result = try await Cravey.run(["play", id, "--from", "0:01.5", "--no-count", "--device", sink.sinkName, "--library", folder.path])
        let samples = try await offPool { try capture.stop() }

        // Then only the second tone was heard, whole
        #expect(result.status == 0, "\(result.error)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.map(\.frequency) == [880], "\(sounding)")
        #expect(sounding.allSatisfy { abs($0.duration - 1.5) <= 0.2 }, "\(sounding)")

        // And a time past its end is refused, naming its length
        let past = try await Cravey.run(["play", id, "--from", "0:04", "--no-count", "--device", sink.sinkName, "--library", folder.path])
        #expect(past.status == 64 && past.error.contains("past the end") && past.error.contains("0:03.000"), "\(past.error)")
        let bad = try await Cravey.run(["play", id, "--from", "-1", "--library", folder.path])
        #expect(bad.status == 64, "\(bad.error)")
    }
}
