import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey trim`'s refusals and what --auto proposes and cuts, run in process (``Outcome``) as
/// `cravey-media` runs it. (The media it writes, read by ffmpeg, ffprobe and GStreamer:
/// TrimWitnessTests.swift; a question on a terminal and a cut killed at each step: the CLI's
/// TrimCommandTests.)
@Suite("cravey trim, in process", .temporaryFiles)
struct TrimCommandTests {
    let library = temporaryLibrary()

    /// Imports `file` with a title; returns its id.
    func imported(_ file: URL, title: String = "Fumble") async throws -> String {
        let result = try await Outcome.of(["import", file.path, "--title", title, "--library", library.path])
        try #require(result.status == 0, "\(result)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func row(_ id: String) throws -> Recording {
        let uuid = try #require(RecordingID(id))
        return try #require(try RecordingLibrary(at: library).recording(uuid))
    }

    func media(_ id: String) throws -> URL {
        library.appendingPathComponent(try row(id).filePath)
    }

    @Test("refusals change nothing: a span past the end, under 0.1 s or the whole clip, nothing asked (64), an unknown id (66) (no confirmation: the CLI's TrimCommandTests)")
    func refusals() async throws {
        let id = try await imported(try await Fixture.audio(seconds: 2))
        let before = try Data(contentsOf: try media(id))
        for (arguments, status) in [(["--start", "3", "--yes"], Int32(64)), (["--start", "1", "--end", "1.05", "--yes"], 64),
                                    (["--start", "0", "--end", "5", "--yes"], 64), ([], 64),
                                    (["--start", "1:99"], 64)] {
            let result = try await Outcome.of(["trim", id, "--library", library.path] + arguments)
            #expect(result.status == status, "\(arguments): \(result.status) \(result.error)")
        }
        let unknown = try await Outcome.of(["trim", "0000", "--start", "1", "--yes", "--library", library.path])
        #expect(unknown.status == 66)
        #expect(try Data(contentsOf: try media(id)) == before)
    }

    @Test("--auto under steady noise within 20 dB of the voice (a 440 Hz tone from 1 s to 3 s of 4 s): the threshold rises over the noise, 0.85-3.15 s proposed and cut",
          arguments: [("pink", 0.1, 0.178), ("brown", 0.05, 0.1), ("pink", 0.1, 0.1), ("white", 0.05, 0.3)])
    func autoUnderSteadyNoise(colour: String, noise: Double, voice: Double) async throws {
        // Given the noise (pink at 0.1 is about -34 dBFS RMS) under all of the clip, the tone over it
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=\(voice)*sin(2*PI*440*t)*between(t\\,1\\,3):s=48000:d=4",
                                              "-f", "lavfi", "-i", "anoisesrc=color=\(colour):amplitude=\(noise):sample_rate=48000:seed=11:duration=4",
                                              "-filter_complex", "[0][1]amix=inputs=2:normalize=0:duration=first", "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let id = try await imported(source, title: "Fan")

        // When --auto proposes a cut, and makes it
        let dry = try await Outcome.of(["trim", id, "--auto", "--dry-run", "--json", "--library", library.path])
        try #require(dry.status == 0, "\(dry.error)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(dry.output.utf8)) as? [String: Any])
        let start = try #require(plan["start"] as? Double), end = try #require(plan["end"] as? Double)
        let floor = try #require(plan["noiseFloor"] as? Double), threshold = try #require(plan["threshold"] as? Double)

        // Then the tone is found, the threshold above the floor, and the cut keeps it
        #expect(abs(start - 0.85) < 0.05 && abs(end - 3.15) < 0.05, "\(colour) noise \(noise), tone \(voice): proposed \(start)-\(end), floor \(floor), threshold \(threshold)")
        #expect(threshold > floor, "\(dry.error)")
        let cut = try await Outcome.of(["trim", id, "--auto", "--yes", "--library", library.path])
        let duration = try row(id).duration
        #expect(cut.status == 0 && abs(duration - 2.3) < 0.06, "\(cut.error)")
    }

    @Test("a dry run refuses what the cut refuses, an --end past the clip is refused (not cut short): 64, nothing changed; the help's forms of a time are taken (the others: UsageErrorTests)")
    func refusalsAsDocumented() async throws {
        let id = try await imported(try await Fixture.audio(seconds: 2))
        let before = try Data(contentsOf: try media(id)), rowBefore = try row(id)
        let spans = [["--start", "3"], ["--start", "2"], ["--start", "0.5", "--end", "2.5"], ["--end", "9"], ["--start", "1", "--end", "1.05"],
                     ["--start", "0", "--end", "2"]]
        for span in spans {
            for mode in [["--dry-run"], ["--yes"]] {
                let result = try await Outcome.of(["trim", id, "--library", library.path] + span + mode)
                #expect(result.status == 64, "\(span + mode): \(result.status) \(result.output) \(result.error)")
            }
        }
        for time in ["1", "1.5", "0:01.5", "0:00:01.250"] {
            let result = try await Outcome.of(["trim", id, "--start", time, "--dry-run", "--library", library.path])
            #expect(result.status == 0, "\(time): \(result.error)")
        }
        #expect(try Data(contentsOf: try media(id)) == before)
        #expect(try row(id) == rowBefore)
    }
}
