import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands
@testable import CraveyCore
@testable import CraveyKit

/// Subtitles written from a transcript, read back by a real FFmpeg as SubRip and WebVTT.
extension TranscriptSurfaceTests {
    /// Three sentences whose words hold what subtitles mark up: an arrow, a tag, an entity, and
    /// a sentence that reads as a SubRip cue's times.
    static let marked = Transcript(language: "nl", words: [
        .init(start: 0.2, end: 0.6, text: "Eb"), .init(start: 0.6, end: 0.9, text: "-->"), .init(start: 0.9, end: 1.4, text: "vloed."),
        .init(start: 3.0, end: 3.5, text: "<b>Vet</b>"), .init(start: 3.5, end: 3.9, text: "&"), .init(start: 3.9, end: 4.4, text: "&amp;lt;i>"),
        .init(start: 6.0, end: 6.5, text: "00:00:09,000"), .init(start: 6.5, end: 6.7, text: "-->"), .init(start: 6.7, end: 7.4, text: "00:00:10,000"),
    ])

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
