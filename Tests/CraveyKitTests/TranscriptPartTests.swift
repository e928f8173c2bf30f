import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyCore

/// A transcript as one of its clip's parts, stored as the store stores any and no transcriber
/// run: what a clean-up, a repair and doctor do with it, and the bytes that are none.
extension TranscriptTests {
    @Test("a noise clean-up drops the transcript (its sound is another), and so does the repair finishing a cut-off one; doctor takes the transcript as the clip's; bytes that are not one are refused")
    func cleanDropsIt() async throws {
        // A tone from 1 s to 3 s over pink noise (what clean works on), and words stored for it.
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,3):s=48000:d=4",
                                              "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.02:sample_rate=48000:seed=7:duration=4",
                                              "-filter_complex", "[0][1]amix=inputs=2:normalize=0:duration=first", "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let library = try RecordingLibrary(at: temporaryLibrary())
        let recording = try await library.importFile(at: source, metadata: try RecordingMetadata(title: "Tone"))
        let words = Transcript(language: "en", words: [Transcript.Word(start: 1.02, end: 1.5, text: "Hum"), Transcript.Word(start: 1.5, end: 2.9, text: "on.")])
        try library.store.write { tx in _ = try tx.store(words.data, as: .transcript, of: ClipFiles(recording)) }
        #expect(library.transcripts.transcript(of: recording) == words)
        let report = try await library.examine()
        #expect(report.isHealthy && report.findings(.foreignFile).isEmpty && report.findings(.orphanPart).isEmpty)

        let cleanup = try await library.shaping.cleanNoise(of: recording)
        _ = try await library.shaping.keep(cleanup)
        #expect(library.transcripts.transcript(of: recording) == nil)
        #expect(!FileManager.default.fileExists(atPath: library.fileURL(try #require(ClipFiles(recording).file(.transcript))).path))

        // A trim or clean-up a crash cut off (its journal left): the repair that finishes it
        // drops the words, whose times may be the old media's or the new one's.
        let cleaned = try #require(try library.recording(recording.id))
        try library.store.write { tx in _ = try tx.store(words.data, as: .transcript, of: ClipFiles(cleaned)) }
        let journal = library.fileURL(try #require(ClipFiles(cleaned).file(.journal)))
        try Data(ClipFiles(cleaned).media(.importing).name.utf8).write(to: journal)
        let repaired = try await library.repair()
        #expect(repaired.repairs.contains { $0.contains("Finished the change") }, "\(repaired.repairs)")
        #expect(library.transcripts.transcript(of: cleaned) == nil && !FileManager.default.fileExists(atPath: journal.path))

        // What a restore would refuse as a transcript's bytes.
        for bad in [#"{"language":"en","words":[{"start":-1,"end":0,"text":"x"}]}"#, #"{"language":"en","words":[{"start":2,"end":1,"text":"x"}]}"#,
                    #"{"language":"en","words":[{"start":0,"end":1,"text":""}]}"#, #"{"words":[]}"#, "not json"] {
            #expect(Transcript(data: Data(bad.utf8)) == nil, "\(bad)")
        }
        #expect(Transcript(data: words.data) == words)
    }
}
