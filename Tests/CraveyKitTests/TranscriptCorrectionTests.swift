import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCore
@testable import CraveyKit

/// `transcript --edit`'s file, without an editor or a process: what is read back of it (CRLF,
/// a size every reader takes), and what a kill leaves of it for doctor.
@Suite("Correcting a transcript: the file an editor is given", .temporaryFiles)
struct TranscriptCorrectionTests {
    /// A library of one clip whose words are `words`.
    func library(_ words: Transcript) async throws -> (RecordingLibrary, Recording) {
        try await Fixture.clip("Dock", words: words.data)
    }

    static let said = Transcript(language: "en", words: [
        .init(start: 0.05, end: 0.15, text: "Fog"), .init(start: 0.15, end: 0.2, text: "lifts."),
        .init(start: 0.25, end: 0.35, text: "Bells"), .init(start: 0.35, end: 0.45, text: "ring."),
    ])

    /// Corrects the words of `clip` with an "editor" that replaces the file's bytes with `edited`.
    func correct(_ clip: Recording, in library: RecordingLibrary, to edited: Data) async throws -> Transcript? {
        try await offPool {
            try library.transcripts.correct(clip) { file in
                try edited.write(to: file)
                return true
            }
        }
    }

    @Test("an edit saved with CRLF line ends, with or without the last, is taken as with LF")
    func crlf() async throws {
        for edited in ["Fog lifts.\r\nBells toll.\r\n", "Fog lifts.\r\nBells toll."] {
            let (library, clip) = try await library(Self.said)
            let corrected = try await correct(clip, in: library, to: Data(edited.utf8))
            #expect(corrected?.words.map(\.text) == ["Fog", "lifts.", "Bells", "toll."], "\(edited.debugDescription)")
            #expect(library.transcripts.transcript(of: clip) == corrected)
        }
    }

    @Test("an edit that leaves a text too large for a transcript (a line over 1 MiB, half a million words) is refused as invalid input, nothing changed and no file left")
    func tooLargeEdits() async throws {
        let (library, clip) = try await library(Self.said)
        let before = library.transcripts.transcript(of: clip)
        let oneLine = Data(("Fog " + String(repeating: "a ", count: 700_000) + "\nBells ring.\n").utf8)
        let manyWords = Data(("Fog " + String(repeating: "a ", count: LibraryTranscripts.largestCorrection / 2 - 20) + "\nBells ring.\n").utf8)
        for (what, edited) in [("a 1.4 MB line", oneLine), ("a line of half a million words", manyWords)] {
            await #expect(throws: CraveyError.self, "\(what)") {
                do {
                    _ = try await correct(clip, in: library, to: edited)
                } catch let error as CraveyError {
                    #expect(error.kind == .invalidInput && error.message.contains("Nothing was changed"), "\(what): \(error.message)")
                    throw error
                }
            }
            #expect(library.transcripts.transcript(of: clip) == before, "\(what)")
            #expect(!library.store.storedFiles().contains { $0.hasSuffix(".words.txt") }, "\(what)")
        }
    }

    @Test("an edit's plain copy of the words that a kill left is reported by doctor and removed by a repair; one an edit holds is left alone; a new edit starts from the words, not from it")
    func leftCopy() async throws {
        let (library, clip) = try await library(Self.said)
        let copy = try #require(ClipFiles(clip).file(.correction))
        try Data("Fog lifts.\nOld words.\n".utf8).write(to: library.fileURL(copy))

        // doctor says it, and a repair takes it
        let report = try await library.examine()
        #expect(!report.isHealthy && report.findings(.interruptedWrite).compactMap(\.path) == [copy.path], "\(report.problems)")
        // A new edit is given the words as they are, not what the copy holds
        let given = Locked<String>("")
        _ = try await offPool {
            try library.transcripts.correct(clip) { file in
                given.withLock { $0 = (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
                return true
            }
        }
        #expect(given.withLock { $0 } == Self.said.correctable)

        try Data("Fog lifts.\nOld words.\n".utf8).write(to: library.fileURL(copy))
        let repaired = try await library.repair()
        #expect(repaired.repairs.contains { $0.contains(copy.path) }, "\(repaired.repairs)")
        #expect(library.store.status(of: copy) == .missing)
        #expect(try await library.examine().isHealthy)
    }

    @Test("the plain copy an edit holds while its editor runs is not taken by doctor, nor by a repair, even once the editor saved it by renaming a new file over it")
    func heldCopy() async throws {
        let (library, clip) = try await library(Self.said)
        let copy = try #require(ClipFiles(clip).file(.correction))
        for renaming in [false, true] {
            let seen = Locked<(Bool, FileStorageManager.Status)?>(nil)
            let corrected = try await offPool {
                try library.transcripts.correct(clip) { file in
                    if renaming { try Data("Fog lifts.\nBells chime.\n".utf8).write(to: file, options: .atomic) }
                    let report = try library.doctor.examine(repair: true, deleteUnplayable: false)
                    seen.withLock { $0 = (report.findings(.interruptedWrite).isEmpty, library.store.status(of: copy)) }
                    return renaming
                }
            }
            let (unreported, status) = try #require(seen.withLock { $0 })
            #expect(unreported && status.size != nil, "renaming: \(renaming)")
            #expect(library.store.status(of: copy) == .missing)
            #expect(corrected?.words.last?.text == (renaming ? "chime." : nil))
        }
    }
}
