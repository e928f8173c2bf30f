import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands
@testable import CraveyCore
@testable import CraveyKit

/// The ways out of a transcript that a person or another program reads: subtitles a real
/// FFmpeg reads back (TranscriptSubtitleTests.swift), and the progress shown.
@Suite("Transcript surfaces: subtitles and progress", .temporaryFiles)
struct TranscriptSurfaceTests {
    @Test("a time no clip has (1e300 s, +inf, nan, below 0) is written as the latest or earliest a subtitle holds; the progress of such a time is not shown")
    func farTimes() {
        #expect(TranscriptOptions.time(1e300, comma: true) == "99:59:59,999")
        #expect(TranscriptOptions.time(.infinity, comma: false) == "99:59:59.999")
        #expect(TranscriptOptions.time(.nan, comma: false) == "00:00:00.000" && TranscriptOptions.time(-3, comma: true) == "00:00:00,000")
        #expect(TranscriptOptions.time(3_723.4567, comma: true) == "01:02:03,457")
        for odd in [-Double.infinity, .infinity, .nan] {
            #expect(Format.percent(heard: odd, of: 12) == nil)
            #expect(Format.percent(heard: 3, of: odd) == nil)
        }
        #expect(Format.percent(heard: 3, of: 0) == nil)
        #expect(Format.percent(heard: -2, of: 12) == 0 && Format.percent(heard: 1e300, of: 12) == 100)
        #expect(Format.percent(heard: 3, of: 12) == 25)
    }

    @Test("a transcriber that says its progress is -inf, nan, inf or 1e300 s, and hears a word past the clip's end (a fault injected by a script in its place): only finite times from 0 on reach the progress (which shows at most 100%), and the word past the end is not stored")
    func lyingTranscriber() async throws {
        // Given a half-second clip, and a transcriber that lies
        let library = try await Fixture.library(titles: ["Buoy"])
        let clip = try #require(try library.recordings().first)
        let script = temporaryFolder().appendingPathComponent("lying-transcriber")
        let words = #"{"language":"sv","words":[{"start":0.1,"end":0.3,"text":"Hej"},{"start":0.3,"end":0.9,"text":"på"},{"start":2.5,"end":3,"text":"dig."}]}"#
        try await writeScript("""
            #!/bin/sh
            cat > /dev/null
            for said in -inf nan inf 1e300 -2 0.25; do echo "progress $said" >&2; done
            echo '\(words)'

            """, to: script)

        // When its words are heard
        let told = Locked<[Double]>([])
        let transcript = try await library.transcripts.transcribe(clip, with: Transcriber(executable: script)) { seconds in told.withLock { $0.append(seconds) } }

        // Then the progress had only times a clip can have, and the words end with the clip
        #expect(told.withLock { $0 } == [1e300, 0.25])
        #expect(transcript.words.map(\.text) == ["Hej", "på"] && transcript.words.last?.end == clip.duration)
        #expect(library.transcripts.transcript(of: clip) == transcript)
    }
}
