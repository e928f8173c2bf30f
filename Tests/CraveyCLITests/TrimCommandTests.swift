import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey trim`, run as a person runs it: its question on a terminal, its refusal with stdin no
/// terminal, and a cut killed at each of its file steps (strace). (Its refusals, what --auto
/// proposes and the media it writes, read by ffmpeg, ffprobe and GStreamer: in process,
/// CraveyCommandsTests' TrimCommandTests.)
@Suite("cravey trim", .temporaryFiles)
struct TrimCommandTests {
    let library = temporaryLibrary()

    /// Imports `file` with a title; returns its id.
    func imported(_ file: URL, title: String = "Fumble") async throws -> String {
        let result = try await Cravey.run(["import", file.path, "--title", title, "--library", library.path])
        try #require(result.status == 0, "\(result.error)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func row(_ id: String) throws -> Recording {
        let uuid = try #require(RecordingID(id))
        return try #require(try RecordingLibrary(at: library).recording(uuid))
    }

    func media(_ id: String, type: RecordingType = .audio) throws -> URL {
        library.appendingPathComponent(try row(id).filePath)
    }

    @Test("on a terminal it asks \"The cut parts cannot be recovered.\"; no keeps the clip")
    func asks() async throws {
        let id = try await imported(try await Fixture.audio(seconds: 2))
        let declined = try await Cravey.answerOnTerminal(["trim", id, "--start", "0.5", "--library", library.path], "n\n")
        #expect(declined.status == 0 && declined.output.contains("The cut parts cannot be recovered.") && declined.output.contains("Nothing was cut."))
        #expect(try row(id).duration == 2)
        let accepted = try await Cravey.answerOnTerminal(["trim", id, "--start", "0.5", "--library", library.path], "y\n")
        let duration = try row(id).duration
        #expect(accepted.status == 0 && abs(duration - 1.5) < 0.001, "\(accepted.output)")
    }

    @Test("killed at each of its file steps (every rename, unlink, flush and commit, by strace), then repaired: the whole old clip or the whole new one, its markers those of its media, never lost, never two")
    func killedAtEachStep() async throws {
        let seed = temporaryFolder().appendingPathComponent("seed")
        let result = try await Cravey.run(["import", try await Fixture.audio(seconds: 1).path, "--title", "Step", "--library", seed.path])
        try #require(result.status == 0)
        let id = try #require(RecordingID(result.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Marked before, at, inside, at the end of and after the part kept (0.2-0.8 s)
        for (time, label) in [("0.1", "before"), ("0.2", "start"), ("0.5", "middle"), ("0.8", "end"), ("0.9", "after")] {
            let marked = try await Cravey.run(["markers", id.uuid.uuidString, "--add", time, "--label", label, "--library", seed.path])
            try #require(marked.status == 0, "\(marked.error)")
        }
        var states: [String: Int] = [:]
        for call in ["renameat", "unlinkat", "fsync", "fdatasync"] {
            for when in 1...60 {
                let copy = temporaryFolder().appendingPathComponent("\(call)-\(when)")
                try FileManager.default.copyItem(at: seed, to: copy)
                let killed = try await run("strace", ["-f", "-o", "/dev/null", "-e", "trace=\(call)", "-e", "inject=\(call):signal=KILL:when=\(when)",
                                                             Cravey.executable, "trim", id.uuid.uuidString, "--start", "0.2", "--end", "0.8", "--yes",
                                                             "--library", copy.path], environment: Cravey.environment())
                _ = try await RecordingLibrary(at: copy).repair()
                let state = try await Self.version(of: id, in: copy)
                #expect(state == "old" || state == "new", "killed at \(call) #\(when): \(state)")
                states[state, default: 0] += 1
                try? FileManager.default.removeItem(at: copy)
                if killed.status == 0 { break }
            }
        }
        #expect(states["old", default: 0] > 0 && states["new", default: 0] > 0, "\(states)")
    }

    /// "old" (1 s) or "new" (0.6 s) when the library holds one clip whose row, media, own copy
    /// and waveform agree; "lost", "two clips" or "inconsistent" otherwise.
    static func version(of id: RecordingID, in folder: URL) async throws -> String {
        let library = try RecordingLibrary(at: folder)
        let rows = try library.recordings()
        guard rows.count == 1 else { return rows.isEmpty ? "lost" : "two clips" }
        guard let row = try library.recording(id), row.title == "Step" else { return "inconsistent: not the clip" }
        guard let copy = library.store.record(of: ClipFiles(row)) else { return "inconsistent: no copy" }
        guard let peaks = library.analysis.storedWaveform(of: row) else { return "inconsistent: no waveform" }
        let media = folder.appendingPathComponent(row.filePath)
        let size = Int64((try? Data(contentsOf: media))?.count ?? -1)
        let probed = try await Witness.ffprobe(media).duration
        guard size == row.fileSize, abs(probed - row.duration) < 0.005, copy.recording.duration == row.duration,
              copy.recording.fileSize == row.fileSize, copy.recording.loudness == row.loudness, copy.plays.count == row.playCount,
              copy.recording.markers == row.markers, abs(peaks.duration - row.duration) < 0.03 else {
            return "inconsistent: row \(row.duration) s \(row.fileSize) B, media \(probed) s \(size) B, copy \(copy.recording.duration) s "
                + "\(copy.recording.fileSize) B, waveform \(peaks.duration) s"
        }
        // The markers are those of the media in place: all five, or the three kept moved back by 0.2 s
        let marks = row.markers.map { "\($0.milliseconds) \($0.label ?? "")" }
        if abs(row.duration - 1) < 0.005 {
            return marks == ["100 before", "200 start", "500 middle", "800 end", "900 after"] ? "old" : "inconsistent: the old clip with markers \(marks)"
        }
        guard abs(row.duration - 0.6) < 0.005 else { return "inconsistent: \(row.duration) s" }
        return marks == ["0 start", "300 middle", "600 end"] ? "new" : "inconsistent: the new clip with markers \(marks)"
    }

    @Test("without --yes, with stdin no terminal, it refuses to cut (64) and changes nothing")
    func refusesUnconfirmed() async throws {
        let id = try await imported(try await Fixture.audio(seconds: 2))
        let before = try Data(contentsOf: try media(id))
        let asked = try await Cravey.run(["trim", id, "--start", "0.5", "--library", library.path])
        #expect(asked.status == 64 && asked.error.contains("Refusing to cut without confirmation"), "\(asked.error)")
        #expect(try Data(contentsOf: try media(id)) == before)
    }
}
