import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// `cravey waveform` and `cravey info`'s sparkline, run in process (``Outcome``) on a clip
/// imported through the door. (The PNG's pixels: WaveformPictureTests.swift; a PNG refused to a
/// terminal and written to a pipe, and a clip handed from `cravey` to `cravey-media`: the CLI's
/// WaveformCommandTests.)
@Suite("cravey waveform, in process", .temporaryFiles)
struct WaveformCommandTests {
    /// A library holding tone bursts at half, a tenth and nine tenths of full scale, imported
    /// through the door (which stores the waveform); the clip's id.
    func bursts() async throws -> (RecordingLibrary, String) {
        let library = try RecordingLibrary(at: temporaryLibrary(), creating: true)
        let clip = try await library.importFile(at: try await Fixture.toneBursts([0.5, 0.1, 0.9]), metadata: RecordingMetadata())
        return (library, clip.id.description)
    }

    @Test("--json is audiowaveform's JSON: version 2, 1 channel, 48 kHz, 480 samples a peak, 16 bits, and the stored peaks")
    func json() async throws {
        let (library, id) = try await bursts()
        let printed = try await Outcome.of(["waveform", id, "--json", "--library", library.url.path])
        try #require(printed.status == 0, "\(printed)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(printed.output.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["version", "channels", "sample_rate", "samples_per_pixel", "bits", "length", "data"])
        #expect(object["version"] as? Int == 2 && object["channels"] as? Int == 1 && object["bits"] as? Int == 16)
        #expect(object["sample_rate"] as? Int == 48_000 && object["samples_per_pixel"] as? Int == 480)
        let data = try #require(object["data"] as? [Int])
        let recordingID = try #require(RecordingID(id))
        let row = try #require(try library.recording(recordingID))
        let waveform = try #require(library.analysis.storedWaveform(of: row))
        #expect(object["length"] as? Int == waveform.peaks.count && data.count == 2 * waveform.peaks.count)
        #expect(data == waveform.peaks.flatMap { [Int($0.min), Int($0.max)] })
    }

    @Test("the output is refused as export's is (inside the library, already there without --force, not a regular file: 64); --width with --json 64; an unknown id 66")
    func refusals() async throws {
        let (library, id) = try await bursts()
        let waveform = { (arguments: [String]) in try await Outcome.of(["waveform", id, "--library", library.url.path] + arguments) }

        let inside = try await waveform(["--output", library.url.appendingPathComponent("Recordings/w.png").path])
        #expect(inside.status == 64 && inside.error.contains("inside the library folder"), "\(inside)")
        let existing = temporaryFolder().appendingPathComponent("mine.png")
        try Data("mine".utf8).write(to: existing)
        let refused = try await waveform(["--output", existing.path])
        #expect(try refused.status == 64 && Data(contentsOf: existing) == Data("mine".utf8), "\(refused)")
        let forced = try await waveform(["--output", existing.path, "--force"])
        #expect(try forced.status == 0 && Data(contentsOf: existing).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]), "\(forced)")
        let folder = try await waveform(["--output", temporaryFolder().path, "--force"])
        #expect(folder.status == 64 && folder.error.contains("not a regular file"), "\(folder)")
        let size = try await waveform(["--json", "--width", "100"])
        #expect(size.status == 64, "\(size)")
        let unknown = try await Outcome.of(["waveform", "0000", "--library", library.url.path])
        #expect(unknown.status == 66, "\(unknown)")
    }

    @Test("a video without sound is refused (64); a clip whose media and waveform are gone 66 (a PNG for a terminal or a pipe: the CLI's WaveformCommandTests)")
    func refusalsOfClips() async throws {
        let (library, id) = try await bursts()
        let silent = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "testsrc=duration=1:size=160x120:rate=25",
                                              "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let video = try await Outcome.of(["import", silent.path, "--library", library.url.path])
        let noSound = try await Outcome.of(["waveform", video.output.trimmingCharacters(in: .whitespacesAndNewlines), "--json",
                                            "--library", library.url.path])
        #expect(noSound.status == 64 && noSound.error.contains("has no sound"), "\(noSound.error)")

        let recordingID = try #require(RecordingID(id))
        let row = try #require(try library.recording(recordingID))
        try FileManager.default.removeItem(at: library.fileURL(row.filePath))
        try FileManager.default.removeItem(at: library.url.appendingPathComponent(ClipFiles(id: row.id, type: .audio).file(.waveform)!.path))
        let missing = try await Outcome.of(["waveform", id, "--json", "--library", library.url.path])
        #expect(missing.status == 66, "\(missing.error)")
    }

    @Test("info shows the clip as a line of bars: loud, quiet and silent where its bursts are; one without a waveform says how to make it")
    func sparkline() async throws {
        let (library, id) = try await bursts()
        let info = try await Outcome.of(["info", id, "--library", library.url.path])
        let line = try #require(info.output.split(separator: "\n").first { $0.hasPrefix("Waveform:") }, "\(info)")
        let bars = Array(line.dropFirst("Waveform:    ".count))
        try #require(bars.count == 60, "\(line)")
        // 3 s in 60 bars: 20 a burst and its silence; the loudest burst is full height
        #expect(bars[2..<8].allSatisfy { $0 == "▅" } && bars[12..<18].allSatisfy { $0 == "▁" }, "\(line)")
        #expect(bars[22..<28].allSatisfy { $0 == "▁" || $0 == "▂" } && bars[42..<48].allSatisfy { $0 == "█" }, "\(line)")

        let old = try await Fixture.library(titles: ["Old"])
        let oldRow = try #require(try old.recordings().first)
        let oldInfo = try await Outcome.of(["info", oldRow.id.uuid.uuidString, "--library", old.url.path])
        #expect(oldInfo.output.contains("Waveform:    not made yet (`cravey waveform` makes it"), "\(oldInfo.output)")
    }
}
