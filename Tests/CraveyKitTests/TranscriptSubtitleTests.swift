import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands
@testable import CraveyCore
@testable import CraveyKit

/// Subtitles written from a transcript, read back by a real FFmpeg as SubRip and WebVTT.
extension TranscriptSurfaceTests {
    /// The cues (times, text) of a subtitle file as FFmpeg writes it in `format` (`srt`), read from `file`.
    func cues(of file: URL, as format: String) async throws -> [String] {
        let read = try await run("ffmpeg", ["-v", "error", "-i", file.path, "-f", format, "-"])
        try #require(read.status == 0, "\(read.error)")
        return read.output.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .newlines) }.filter { $0.contains(" --> ") }
    }

    @Test("SubRip and WebVTT written with words holding -->, & and tags: FFmpeg reads every cue back, at its times, with the words as written (SubRip's < > as ‹ ›)")
    func subtitlesSurvive() async throws {
        for (format, ext) in [(TranscriptOptions.Format.srt, "srt"), (.vtt, "vtt")] {
            // Given the words as the command writes them
            let options = try TranscriptOptions.parse(["0", "--format", format.rawValue])
            let file = temporaryFolder().appendingPathComponent("words.\(ext)")
            try Data(options.text(of: Self.marked).utf8).write(to: file)

            // When FFmpeg reads them back as SubRip
            let cues = try await cues(of: file, as: "srt")

            // Then every sentence is a cue at its times, its words intact
            let sentences = Self.marked.sentences
            #expect(cues.count == sentences.count, "\(format): \(cues)")
            for (cue, sentence) in zip(cues, sentences) {
                let lines = cue.split(separator: "\n").map(String.init)
                let times = "\(TranscriptOptions.time(sentence.first!.start, comma: true)) --> \(TranscriptOptions.time(sentence.last!.end, comma: true))"
                let text = sentence.map(\.text).joined(separator: " ")
                #expect(lines.count == 3 && lines[1] == times, "\(format): \(cue)")
                // WebVTT's escapes read back as the words; SubRip's words as it writes them.
                #expect(lines.last == (format == .vtt ? text : TranscriptOptions.subRip(text)), "\(format): \(cue)")
            }
            // And as WebVTT, as many cues
            #expect(try await self.cues(of: file, as: "webvtt").count == sentences.count, "\(format)")
        }
    }
}
