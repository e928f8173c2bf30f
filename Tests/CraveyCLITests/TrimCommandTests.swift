import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey trim`, run as a person runs it, the result checked by ffmpeg, ffprobe and GStreamer.
/// (What it refuses and what --auto proposes: in process, CraveyCommandsTests' TrimCommandTests.)
@Suite("cravey trim", .temporaryFiles)
struct TrimCommandTests {
    let library = temporaryLibrary()

    /// 1 s of silence, 3 s of a 440 Hz tone at half scale, 1.5 s of silence: AAC, 48 kHz mono.
    static func silenceToneSilence() async throws -> URL {
        try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,4):s=48000:d=5.5",
                                 "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
    }

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

    /// The duration GStreamer's discoverer reports, in seconds.
    static func gstreamerDuration(_ url: URL) async throws -> Double {
        let result = try await run("gst-discoverer-1.0", [url.path])
        guard let match = result.output.firstMatch(of: #/Duration: (\d+):(\d\d):(\d\d\.\d+)/#) else {
            throw TestFailure("gst-discoverer-1.0 could not read \(url.path): \(result.output) \(result.error)")
        }
        return Double(match.1)! * 3600 + Double(match.2)! * 60 + Double(match.3)!
    }

    @Test("--auto proposes about 0.85-4.15 s from the waveform; the cut keeps the original's samples of that span exactly, ffprobe and GStreamer read the new duration, title, date and plays stay, waveform and loudness are the new content's")
    func autoTrim() async throws {
        // Given the fixture, imported, with a play counted
        let id = try await imported(try Self.silenceToneSilence())
        let before = try row(id)
        _ = try RecordingLibrary(at: library).countPlay(of: before, secondsListened: 5.5, completed: true)
        let originalFile = temporaryFolder().appendingPathComponent("original.m4a")
        try FileManager.default.copyItem(at: try media(id), to: originalFile)
        let originalPeaks = try #require(try RecordingLibrary(at: library).analysis.storedWaveform(of: before))

        // When --auto is asked what it would cut, then cuts
        let dry = try await Cravey.run(["trim", id, "--auto", "--dry-run", "--json", "--library", library.path])
        try #require(dry.status == 0, "\(dry.error)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(dry.output.utf8)) as? [String: Any])
        let start = try #require(plan["start"] as? Double), end = try #require(plan["end"] as? Double)
        #expect(abs(start - 0.85) < 0.03 && abs(end - 4.15) < 0.03, "proposed \(start)-\(end)")
        #expect(dry.error.contains("cutting") && dry.error.contains("dBFS"), "it says what it would cut: \(dry.error)")
        #expect(try row(id).duration == before.duration, "--dry-run changes nothing")
        let cut = try await Cravey.run(["trim", id, "--auto", "--yes", "--json", "--library", library.path])
        try #require(cut.status == 0, "\(cut.error)")

        // Then the decoded samples are the original's of that span, exactly
        let original = try await Witness.decodeFloat(["-i", originalFile.path])
        let trimmed = try await Witness.decodeFloat(["-i", try media(id).path])
        let first = Int((start * 48_000).rounded()), count = Int(((end - start) * 48_000).rounded())
        try #require(trimmed.count >= count && trimmed.count < count + 1024, "decoded \(trimmed.count) of \(count) samples")
        let difference = zip(trimmed[0..<count], original[first..<first + count]).map { abs($0 - $1) }.max() ?? 1
        #expect(difference == 0, "the kept samples, bit for bit: largest difference \(difference)")

        // ffprobe and GStreamer read the new duration, which the row holds
        let after = try row(id)
        #expect(abs(after.duration - Double(count) / 48_000) < 0.001)
        #expect(abs(try await Witness.ffprobe(try media(id)).duration - after.duration) < 0.001)
        await #expect(abs(try Self.gstreamerDuration(try media(id)) - after.duration) < 0.001)
        // Its words, date and plays stay
        #expect(after.id == before.id && after.title == "Fumble" && after.createdAt == before.createdAt)
        let plays = try RecordingLibrary(at: library).plays(of: before.id)
        #expect(after.playCount == 1 && plays.count == 1)
        // Its waveform is the kept part's (the peaks of whole 10 ms the original had there), its
        // loudness ffmpeg's of the new file
        let peaks = try #require(try RecordingLibrary(at: library).analysis.storedWaveform(of: before))
        let offset = first / 480
        #expect(first % 480 == 0 && abs(peaks.peaks.count - count / 480) <= 1)
        #expect(Array(peaks.peaks.dropLast()) == Array(originalPeaks.peaks[offset..<offset + peaks.peaks.count - 1]))
        let measured = try await Witness.ebur128(["-i", try media(id).path], dualMono: true)
        #expect(abs(try #require(after.loudness).integrated - measured.integrated) < 0.3)
        // The file cravey kept is what it says, and nothing else is left
        let doctor = try await Cravey.run(["doctor", "--library", library.path])
        #expect(doctor.status == 0, "\(doctor.output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path)
        #expect(names.allSatisfy { !$0.hasPrefix(".") && !$0.hasSuffix(".importing") }, "\(names)")
        #expect(after.fileSize == Int64(try Data(contentsOf: try media(id)).count))
    }

    /// The MD5 of each audio packet's bytes, in order (ffmpeg's framemd5 of a stream copy).
    static func packetHashes(_ url: URL) async throws -> [String] {
        let result = try await run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"])
        // stream, dts, pts, duration, size, hash (then any side data's)
        return result.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    @Test("a cut inside the sound copies the frames kept byte for byte (and one before, the decoder's preroll, hidden by the edit list); without PNS in the encoding, the decoded samples are the original's exactly")
    func cutInsideSound() async throws {
        // AAC without perceptual noise substitution: the decoder fills PNS bands from its own
        // random generator, whose state depends on where decoding began.
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=3:sample_rate=48000",
                                              "-ac", "1", "-c:a", "aac", "-aac_pns", "0", "-b:a", "96k"])
        let id = try await imported(source)
        let original = try await Witness.decodeFloat(["-i", try media(id).path])
        let originalPackets = try await Self.packetHashes(try media(id))
        let cut = try await Cravey.run(["trim", id, "--start", "1.00017", "--end", "0:02.5", "--yes", "--library", library.path])
        try #require(cut.status == 0, "\(cut.error)")
        let packets = try await Self.packetHashes(try media(id))
        try #require(!packets.isEmpty && packets.count < originalPackets.count)
        #expect((0...originalPackets.count - packets.count).contains { Array(originalPackets[$0..<$0 + packets.count]) == packets },
                "the kept frames are a run of the original's, byte for byte")
        let trimmed = try await Witness.decodeFloat(["-i", try media(id).path])
        let first = Int((1.00017 * 48_000).rounded()), count = Int((2.5 * 48_000).rounded()) - first
        try #require(trimmed.count >= count)
        let difference = zip(trimmed[0..<count], original[first..<first + count]).map { abs($0 - $1) }.max() ?? 1
        #expect(difference == 0, "largest difference \(difference)")
        #expect(abs(try await Witness.ffprobe(try media(id)).duration - Double(count) / 48_000) < 0.001)
    }

    @Test("a video is cut at the exact picture: the first picture shown is the original's at the start, decoded identically (no picture re-encoded), and its thumbnail is made again")
    func video() async throws {
        let id = try await imported(try await Fixture.video(seconds: 4, size: "320x240"))
        let original = try media(id)
        func firstPicture(_ arguments: [String]) async throws -> String {
            let result = try await run("ffmpeg", ["-v", "error"] + arguments + ["-frames:v", "1", "-f", "framemd5", "-"])
            return try #require(result.output.split(separator: "\n").last { !$0.hasPrefix("#") }?.split(separator: ",").last)
                .trimmingCharacters(in: .whitespaces)
        }
        let atStart = try await firstPicture(["-ss", "1.2", "-i", original.path, "-an"])
        let copy = temporaryFolder().appendingPathComponent("original.mp4")
        try FileManager.default.copyItem(at: original, to: copy)
        let cut = try await Cravey.run(["trim", id, "--start", "1.2", "--end", "3.0", "--yes", "--library", library.path])
        try #require(cut.status == 0, "\(cut.error)")
        await #expect(try firstPicture(["-i", try media(id).path, "-an"]) == atStart)
        #expect(abs(try await Witness.ffprobe(try media(id)).duration - 1.8) < 0.05)
        await #expect(abs(try Self.gstreamerDuration(try media(id)) - 1.8) < 0.05)
        let after = try row(id)
        #expect(abs(after.duration - 1.8) < 0.05 && after.thumbnailPath != nil)
        #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent(try #require(after.thumbnailPath)).path))
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
