import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// A change that a question leads to (trim, clean's keep, delete, edit) is made only against the
/// clip as the question showed it (``ClipVersion``): once another process changed the clip, it
/// is refused (`.busy`) and nothing changes.
@Suite("A question's change, against the clip as asked", .temporaryFiles)
struct AskedVersionTests {
    /// A library holding one 4 s clip: a tone from 1 s to 3 s over pink noise (what trim and
    /// clean both work on), imported through the door.
    func libraryWithClip() async throws -> (RecordingLibrary, Recording) {
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,3):s=48000:d=4",
                                              "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.02:sample_rate=48000:seed=7:duration=4",
                                              "-filter_complex", "[0][1]amix=inputs=2:normalize=0:duration=first", "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let library = try RecordingLibrary(at: temporaryLibrary())
        let recording = try await library.importFile(at: source, metadata: try RecordingMetadata(title: "Asked"))
        return (library, recording)
    }

    /// The clip's row and the bytes of its media, as they are now.
    func state(_ library: RecordingLibrary, _ recording: Recording) throws -> (Recording?, Data) {
        (try library.recording(recording.id), try Data(contentsOf: try library.fileURL(of: recording)))
    }

    @Test("trimmed by another process after the question: the asked trim, delete, edit and clean are refused as busy, the clip's row and media byte for byte as the other left them")
    func changedMediaRefusesEveryChange() async throws {
        // Given a clip, and its version taken when a question about it was asked
        let (library, recording) = try await libraryWithClip()
        let asked = library.version(of: recording)
        #expect(asked.recording == recording)

        // When another process (a library of its own on the same folder) trims it meanwhile
        let other = try RecordingLibrary(at: library.url)
        let trimmed = try await other.trim(try #require(try other.recording(recording.id)), from: 0.5, to: 3.5)
        #expect(abs(trimmed.duration - 3) < 0.01)
        let afterOther = try state(library, recording)

        // Then each change asked about the clip as it was is refused, and nothing changes
        var refusals: [CraveyError?] = []
        refusals.append(await #expect(throws: CraveyError.self) { _ = try await library.shaping.trim(recording, from: 1, to: 2, asked: asked) })
        refusals.append(#expect(throws: CraveyError.self) { try library.delete(recording.id, asked: asked) })
        refusals.append(#expect(throws: CraveyError.self) { try library.edit(recording.id, asked: asked) { $0.title = "Renamed" } })
        refusals.append(await #expect(throws: CraveyError.self) { _ = try await library.shaping.cleanNoise(of: recording, asked: asked) })
        for refusal in refusals {
            #expect(refusal?.kind == .busy && refusal?.message.contains("changed by another cravey") == true, "\(String(describing: refusal))")
        }
        let now = try state(library, recording)
        #expect(now.0 == afterOther.0 && now.1 == afterOther.1, "the row and the media are as the other process left them")
        #expect(try await library.examine().isHealthy)

        // And a version taken now lets the change through
        let renamed = try library.edit(recording.id, asked: library.version(of: try #require(now.0))) { $0.title = "Renamed" }
        #expect(renamed.title == "Renamed")
    }

    @Test("a clean-up waiting to be kept: another process's trim is refused (the clip's writing name is held), its edit goes through, and the keep is then refused as busy")
    func keepAfterEdit() async throws {
        let (library, recording) = try await libraryWithClip()
        let cleanup = try await library.shaping.cleanNoise(of: recording, asked: library.version(of: recording))
        let other = try RecordingLibrary(at: library.url)
        let trim = await #expect(throws: CraveyError.self) { _ = try await other.trim(recording, from: 0.5, to: 3.5) }
        #expect(trim?.kind == .busy)
        _ = try other.edit(recording.id) { $0.title = "Renamed meanwhile" }
        let afterOther = try state(library, recording)
        let refusal = await #expect(throws: CraveyError.self) { _ = try await library.shaping.keep(cleanup) }
        #expect(refusal?.kind == .busy, "\(String(describing: refusal))")
        let now = try state(library, recording)
        #expect(now.0 == afterOther.0 && now.1 == afterOther.1)
    }

    @Test("delete after the question: refused once the title was edited (the clip shown is not the clip it became), allowed after a play counted (a play changes nothing the question showed)")
    func deleteAfterEditOrPlay() async throws {
        let (library, recording) = try await libraryWithClip()
        let other = try RecordingLibrary(at: library.url)

        // A play counted, and its loudness known, meanwhile: the clip is the one asked about
        let asked = library.version(of: recording)
        _ = try other.countPlay(of: recording, secondsListened: 4, completed: true)
        let edited = try other.edit(recording.id) { $0.notes = nil }  // an edit that changes nothing
        #expect(edited.playCount == 1)
        #expect(try library.store.write { tx in try tx.expect(asked) }.playCount == 1)

        // Its title edited meanwhile: the delete asked about the old one is refused
        let renamed = try other.edit(recording.id) { $0.title = "Keep this one" }
        let refusal = #expect(throws: CraveyError.self) { try library.delete(recording.id, asked: asked) }
        #expect(refusal?.kind == .busy)
        #expect(try library.recording(recording.id) == renamed)

        // A version of another clip is a caller's mistake, refused as such
        let second = try await libraryWithClip()
        let mismatch = #expect(throws: CraveyError.self) { try library.delete(recording.id, asked: second.0.version(of: second.1)) }
        #expect(mismatch?.kind == .invalidInput)
        #expect(try library.recording(recording.id) != nil)

        // Asked again, it goes
        try library.delete(recording.id, asked: library.version(of: renamed))
        #expect(try library.recording(recording.id) == nil)
    }
}
