import CraveyKit
import Foundation

/// Real media made at test time with the ffmpeg tool.
public enum Fixture {
    /// An AAC .m4a holding a sine tone.
    public static func audio(seconds: Double = 1, frequency: Double = 440, in folder: URL? = nil) throws -> URL {
        try make("m4a", in: folder, ["-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds):sample_rate=48000",
                                     "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
    }

    /// Runs ffmpeg with `arguments` into a new file with the extension `ext`.
    public static func make(_ ext: String, in folder: URL? = nil, _ arguments: [String]) throws -> URL {
        let folder = folder ?? FileManager.default.temporaryDirectory
        let url = folder.appendingPathComponent("fixture-\(UUID().uuidString).\(ext)")
        let result = try run("ffmpeg", ["-v", "error", "-y"] + arguments + [url.path])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not make \(url.lastPathComponent): \(result.error)") }
        return url
    }

    /// A library at a fresh temporary folder holding `count` saved audio clips.
    public static func library(clips count: Int = 0, titles: [String] = []) throws -> RecordingLibrary {
        let library = try RecordingLibrary(at: temporaryLibrary())
        let save = SaveRecordingUseCase(library: library)
        let source = try audio(seconds: 0.5)
        defer { try? FileManager.default.removeItem(at: source) }
        for index in 0..<max(count, titles.count) {
            let copy = library.storage.recordingsURL.appendingPathComponent("import-\(index).tmp")
            try FileManager.default.copyItem(at: source, to: copy)
            let title = index < titles.count ? titles[index] : "Clip \(index)"
            _ = try save.execute(fileAt: copy, id: UUID(), type: .audio, duration: 0.5,
                                 metadata: try RecordingMetadata(title: title),
                                 createdAt: Date(timeIntervalSince1970: 1_790_000_000 + Double(index)))
        }
        return library
    }
}
