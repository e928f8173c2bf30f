import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Cuts whose media ffmpeg, ffprobe and GStreamer read back as independent witnesses: the
/// samples kept, the frames copied, the picture cut at, the new duration. The cut itself runs in
/// process (``Outcome``); its refusals and --auto's proposals are in TrimCommandTests.swift.
extension TrimCommandTests {
    /// 1 s of silence, 3 s of a 440 Hz tone at half scale, 1.5 s of silence: AAC, 48 kHz mono.
    static func silenceToneSilence() async throws -> URL {
        try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,4):s=48000:d=5.5",
                                 "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
    }

    /// The duration GStreamer's discoverer reports, in seconds.
    static func gstreamerDuration(_ url: URL) async throws -> Double {
        let result = try await run("gst-discoverer-1.0", [url.path])
        guard let match = result.output.firstMatch(of: #/Duration: (\d+):(\d\d):(\d\d\.\d+)/#) else {
            throw TestFailure("gst-discoverer-1.0 could not read \(url.path): \(result.output) \(result.error)")
        }
        return Double(match.1)! * 3600 + Double(match.2)! * 60 + Double(match.3)!
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
        let dry = try await Outcome.of(["trim", id, "--auto", "--dry-run", "--json", "--library", library.path])
        try #require(dry.status == 0, "\(dry.error)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(dry.output.utf8)) as? [String: Any])
        let start = try #require(plan["start"] as? Double), end = try #require(plan["end"] as? Double)
        #expect(abs(start - 0.85) < 0.03 && abs(end - 4.15) < 0.03, "proposed \(start)-\(end)")
        #expect(dry.error.contains("cutting") && dry.error.contains("dBFS"), "it says what it would cut: \(dry.error)")
        #expect(try row(id).duration == before.duration, "--dry-run changes nothing")
        let cut = try await Outcome.of(["trim", id, "--auto", "--yes", "--json", "--library", library.path])
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
        let doctor = try await Outcome.of(["doctor", "--library", library.path])
        #expect(doctor.status == 0, "\(doctor.output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path)
        #expect(names.allSatisfy { !$0.hasPrefix(".") && !$0.hasSuffix(".importing") }, "\(names)")
        #expect(after.fileSize == Int64(try Data(contentsOf: try media(id)).count))
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
        let cut = try await Outcome.of(["trim", id, "--start", "1.00017", "--end", "0:02.5", "--yes", "--library", library.path])
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
        let cut = try await Outcome.of(["trim", id, "--start", "1.2", "--end", "3.0", "--yes", "--library", library.path])
        try #require(cut.status == 0, "\(cut.error)")
        await #expect(try firstPicture(["-i", try media(id).path, "-an"]) == atStart)
        #expect(abs(try await Witness.ffprobe(try media(id)).duration - 1.8) < 0.05)
        await #expect(abs(try Self.gstreamerDuration(try media(id)) - 1.8) < 0.05)
        let after = try row(id)
        #expect(abs(after.duration - 1.8) < 0.05 && after.thumbnailPath != nil)
        #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent(try #require(after.thumbnailPath)).path))
    }
}
