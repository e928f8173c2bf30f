import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// What a clip owns is one list (``ClipFiles/Part/all``): a part added to it is carried by
/// backup and restore, known to doctor and `--repair`, and deleted with its clip, with no other
/// change anywhere.
@Suite("A clip's parts, listed once", .temporaryFiles)
struct ClipPartsTests {
    /// A part made from the media, defined in this file alone: the clip's length in
    /// milliseconds, as text, made by its maker from the finisher's one decoding. Made only in
    /// the libraries of ``makingLength``: the list is the process's, and other tests count the
    /// files of their clips.
    static let length = PartMaker(part: ClipFiles.Part(name: "test length", suffix: ".test-length.txt", origin: .derived,
                                                       isBackedUp: true, remaking: .fromMedia)) { media, decoded in
        guard makingLength.withLock({ $0.contains { media.url.path.contains("/\($0)/") } }) else { return nil }
        return Data(String(Int((decoded.duration * 1000).rounded())).utf8)
    }
    /// The names of the libraries' folders (each test's own, a UUID's) where it is made.
    static let makingLength = Locked<[String]>([])

    /// A derived part that follows a cut, defined in this file alone: times in seconds, one a
    /// line, as a transcript's words are; a trim keeps those inside the cut, moved by its start.
    static let times = ClipFiles.Part(name: "test times", suffix: ".test-times.txt", origin: .derived, isBackedUp: true,
                                      remaking: .onRequest, moved: { data, kept in
        let times = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        return Data(times.filter(kept.contains).map { String(format: "%.3f", $0 - kept.lowerBound) }.joined(separator: "\n").utf8)
    })

    @Test("a part made from the media and one that follows a cut, added in a test alone: an import makes the first, a trim makes it again from the new media and moves the second, and a repair finishing a cut-off change makes the first again and drops the second")
    func derivedParts() async throws {
        PartMaker.register(Self.length)
        ClipFiles.Part.register(Self.times)
        let text = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "missing" }
        // Given a 4 s clip imported: its length is made with it
        let folder = temporaryLibrary()
        let library = try RecordingLibrary(at: folder)
        Self.makingLength.withLock { $0.append(folder.lastPathComponent) }
        let source = try await Fixture.audio(seconds: 4)
        let imported = try await library.importFile(at: source, metadata: RecordingMetadata(title: "Parts"))
        let clip = ClipFiles(imported)
        let (length, times) = (library.fileURL(try #require(clip.file(Self.length.part))), library.fileURL(try #require(clip.file(Self.times))))
        #expect(text(length) == String(Int((imported.duration * 1000).rounded())))

        // When times are written (as a transcript is) and the clip is trimmed to 1-3 s
        try Data("0.5\n1.5\n2.25\n3.5".utf8).write(to: times)
        let trimmed = try await library.trim(imported, from: 1, to: 3)

        // Then its length is the new media's, and the times inside the cut moved with it
        #expect(text(length) == String(Int((trimmed.duration * 1000).rounded())) && abs(trimmed.duration - 2) < 0.05)
        #expect(text(times) == "0.500\n1.250")

        // When the length is lost and a repair finishes a trim a crash cut off (as after any
        // new media but a trim's, a clean-up's), it is made again from the media in place, and
        // the times go (which media they were of is unknown)
        try FileManager.default.removeItem(at: length)
        try Data("0.5".utf8).write(to: times)
        try Data().write(to: library.fileURL(try #require(clip.file(.journal))))
        let report = try await offPool { try library.doctor.examine(repair: true, deleteUnplayable: false) }
        #expect(report.repairs.contains { $0.contains("Finished the change") }, "\(report.repairs)")
        #expect(text(length) == String(Int((trimmed.duration * 1000).rounded())))
        #expect(!FileManager.default.fileExists(atPath: times.path))
    }
}

