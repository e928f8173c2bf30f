import CraveyKit
import Foundation
import Testing

/// What the backup tests share, in process and in the CLI: a lived-in library, a backup altered
/// by hand, and what "restored as it was" and "nothing changed" compare.
extension Fixture {
    /// A library of three audio clips with words and plays and one imported video (with its
    /// thumbnail and loudness).
    public static func livedInForBackup() async throws -> RecordingLibrary {
        let library = try await Fixture.library(titles: ["Why I stopped", "Breathe", "Day 30"])
        for (index, recording) in try library.recordings().enumerated() {
            try library.edit(recording.id) { words in
                words.notes = "Note \(index), with \"quotes\" and\na line"
                words.purpose = [.motivational, .craving, .milestone][index]
            }
            for _ in 0...index { try library.countPlay(of: recording, secondsListened: 0.25 * Double(index + 1), completed: index > 0) }
        }
        _ = try await library.importFile(at: try await Fixture.video(seconds: 1, size: "160x120"), metadata: try RecordingMetadata(title: "Me, on day one"))
        return library
    }

    /// Every row of `copy` is the row of `original` with the same id: the same words, dates,
    /// plays, loudness and bytes.
    public static func expectSame(_ copy: RecordingLibrary, as original: RecordingLibrary, ids: [RecordingID]? = nil,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        for row in try original.recordings() where ids?.contains(row.id) ?? true {
            let back = try #require(try copy.recording(row.id), "\(row.title) is missing", sourceLocation: sourceLocation)
            #expect(back.title == row.title && back.notes == row.notes && back.purpose == row.purpose && back.type == row.type,
                    sourceLocation: sourceLocation)
            #expect(abs(back.createdAt.timeIntervalSince(row.createdAt)) < 0.002 && back.duration == row.duration, sourceLocation: sourceLocation)
            #expect(back.playCount == row.playCount && back.fileSize == row.fileSize, sourceLocation: sourceLocation)
            #expect(back.lastPlayedAt.map { abs($0.timeIntervalSince(row.lastPlayedAt!)) < 0.002 } ?? (row.lastPlayedAt == nil),
                    sourceLocation: sourceLocation)
            #expect(back.loudness == row.loudness, sourceLocation: sourceLocation)
            let (plays, originalPlays) = (try copy.plays(of: row.id), try original.plays(of: row.id))
            #expect(plays.map(\.secondsListened) == originalPlays.map(\.secondsListened)
                    && plays.map(\.completed) == originalPlays.map(\.completed), sourceLocation: sourceLocation)
            #expect(try Data(contentsOf: copy.url.appendingPathComponent(back.filePath))
                    == Data(contentsOf: original.url.appendingPathComponent(row.filePath)), sourceLocation: sourceLocation)
            #expect((row.thumbnailPath == nil) == (back.thumbnailPath == nil), sourceLocation: sourceLocation)
            if let thumbnail = row.thumbnailPath, let copied = back.thumbnailPath {
                #expect(try Data(contentsOf: copy.url.appendingPathComponent(copied))
                        == Data(contentsOf: original.url.appendingPathComponent(thumbnail)), sourceLocation: sourceLocation)
            }
            // Its waveform, when it had one; a clip saved before waveforms were kept has none.
            let waveform = ClipFiles(id: row.id, type: row.type).file(.waveform)!.path
            let (copied, kept) = (try? Data(contentsOf: copy.url.appendingPathComponent(waveform)),
                                  try? Data(contentsOf: original.url.appendingPathComponent(waveform)))
            #expect(copied == kept, sourceLocation: sourceLocation)
        }
    }

    /// The names under the library folder, with their sizes: what "nothing changed" compares.
    public static func contents(of folder: URL) -> [String: Int] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey]) else { return [:] }
        var found: [String: Int] = [:]
        for case let url as URL in walker {
            found[url.path] = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? -1
        }
        return found
    }

    /// The regular files under `folder`, by their path within it, with their bytes: what
    /// "unchanged byte for byte" compares.
    public static func bytes(of folder: URL) throws -> [String: Data] {
        var found: [String: Data] = [:]
        for path in (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? [] {
            let url = folder.appendingPathComponent(path)
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            found[path] = try Data(contentsOf: url)
        }
        return found
    }

    /// A backup changed as `change` says, as a damaged disk, a cut-off copy or a hand would.
    public static func altered(_ archive: URL, _ name: String, _ change: (inout Data) throws -> Void) throws -> URL {
        var data = try Data(contentsOf: archive)
        try change(&data)
        let url = temporaryFolder().appendingPathComponent(name)
        try data.write(to: url)
        return url
    }
}
