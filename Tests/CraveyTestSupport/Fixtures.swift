import CraveyKit
import Foundation

/// Real media made at test time with the ffmpeg tool.
public enum Fixture {
    /// An AAC .m4a holding a sine tone.
    public static func audio(seconds: Double = 1, frequency: Double = 440, in folder: URL? = nil) async throws -> URL {
        try await make("m4a", in: folder, ["-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds):sample_rate=48000",
                                     "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
    }

    /// A spoken sentence (espeak-ng, 48 kHz mono) after 1.5 s and before 1.5 s of quiet, with
    /// pink noise of `noise` amplitude (0.02: about -48 dBFS RMS) under all of it, as AAC.
    public static func speechOverNoise(noise: Double, color: String = "pink") async throws -> URL {
        let spoken = temporaryFolder().appendingPathComponent("spoken-\(UUID().uuidString).wav")
        let said = try await run("espeak-ng", ["-w", spoken.path, "Breathe. This craving will pass. You have done this before, and you can do it again today."])
        guard said.status == 0 else { throw TestFailure("espeak-ng: \(said.error)") }
        return try await make("m4a", ["-i", spoken.path, "-f", "lavfi", "-i", "anoisesrc=color=\(color):amplitude=\(noise):sample_rate=48000:seed=7",
                                 "-filter_complex", "[0]aresample=48000,adelay=1500,apad=pad_dur=1.5[s];[s][1]amix=inputs=2:normalize=0:duration=first",
                                 "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
    }

    /// Bursts of a 440 Hz tone at known amplitudes (`levels`, 0 to 1 of full scale), each
    /// `burst` seconds long and followed by `gap` seconds of silence: mono 48 kHz, as a 16-bit
    /// WAV, or in another format with `ext` and `codec` (`["-c:a", "aac"]`).
    public static func toneBursts(_ levels: [Double], burst: Double = 0.5, gap: Double = 0.5, ext: String = "wav",
                                  codec: [String] = []) async throws -> URL {
        let period = burst + gap
        let envelope = levels.enumerated().map { index, level in
            // Commas escaped: lavfi reads its input as a filter graph, where a comma ends a filter.
            "\(level)*between(t\\,\(Double(index) * period)\\,\(Double(index) * period + burst))"
        }.joined(separator: "+")
        return try await make(ext, ["-f", "lavfi", "-i",
                              "aevalsrc=(\(envelope))*sin(2*PI*440*t):s=48000:d=\(Double(levels.count) * period)"] + codec)
    }

    /// An H.264/AAC .mp4 of ffmpeg's test pattern with a tone.
    public static func video(seconds: Double = 2, size: String = "640x480", extra: [String] = [],
                             ext: String = "mp4", codec: [String] = ["-c:v", "libx264", "-preset", "ultrafast",
                                                                     "-pix_fmt", "yuv420p", "-c:a", "aac"]) async throws -> URL {
        try await make(ext, ["-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=\(size):rate=25",
                       "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-shortest"] + codec + extra)
    }

    /// The mean brightness (0-255) and size of a picture, read by the ffmpeg tool.
    public static func brightness(of image: URL) async throws -> (mean: Double, width: Int, height: Int) {
        let probe = try await run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,codec_name",
                                        "-of", "csv=p=0", image.path])
        let fields = probe.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        guard fields.count == 3, let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw TestFailure("ffprobe could not read \(image.path): \(probe.error)")
        }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("gray-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        let gray = try await run("ffmpeg", ["-v", "error", "-i", image.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        guard gray.status == 0 else { throw TestFailure("ffmpeg could not decode \(image.path): \(gray.error)") }
        let bytes = try Data(contentsOf: raw)
        return (Double(bytes.reduce(0) { $0 + Int($1) }) / Double(max(bytes.count, 1)), width, height)
    }

    /// The mean absolute difference (0-255) between two pictures of the same size, in gray.
    public static func difference(_ a: URL, _ b: URL) async throws -> Double {
        func gray(_ url: URL) async throws -> [UInt8] {
            let raw = FileManager.default.temporaryDirectory.appendingPathComponent("gray-\(UUID().uuidString).raw")
            defer { try? FileManager.default.removeItem(at: raw) }
            let result = try await run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
            guard result.status == 0 else { throw TestFailure("ffmpeg could not decode \(url.path): \(result.error)") }
            return Array(try Data(contentsOf: raw))
        }
        let (left, right) = (try await gray(a), try await gray(b))
        guard left.count == right.count, !left.isEmpty else { throw TestFailure("pictures differ in size") }
        return Double(zip(left, right).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(left.count)
    }

    /// Runs ffmpeg with `arguments` into a new file with the extension `ext`, in the test's temporary folder by default.
    ///
    /// A file of one of the ``singleFiles`` formats made only from ffmpeg's own sources (no
    /// argument naming a file) is made once per run and copied to each test that asks for it:
    /// see ``made(_:_:)``.
    public static func make(_ ext: String, in folder: URL? = nil, _ arguments: [String]) async throws -> URL {
        let folder = folder ?? temporaryFolder()
        let url = folder.appendingPathComponent("fixture-\(UUID().uuidString).\(ext)")
        guard singleFiles.contains(ext), !arguments.contains(where: { $0.hasPrefix("/") }) else {
            try await ffmpeg(arguments, into: url)
            return url
        }
        try FileManager.default.copyItem(at: await made(ext, arguments), to: url)
        return url
    }

    /// The formats ffmpeg writes as one file, which a copy of it is whole (an HLS playlist's
    /// segments, for one, are files beside it).
    private static let singleFiles: Set = ["m4a", "mp4", "wav", "mp3", "ogg", "opus", "flac", "webm", "mkv", "mov", "avi",
                                           "aac", "mpg", "ogv", "jpg", "png"]

    /// The run's one copy of the file ffmpeg makes of `arguments`, named by them (a 64-bit FNV-1a hash)
    /// in the run's temporary folder (`scripts/test` gives each run its own `TMPDIR`), made the
    /// first time a test asks for it. Two tests asking at once may both make it: each renames its
    /// own whole file into place, so a reader never sees half of one.
    static func made(_ ext: String, _ arguments: [String]) async throws -> URL {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-fixtures-\(getuid())")
        let key = (["ffmpeg", ext] + arguments).joined(separator: "\u{0}").utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) {
            ($0 ^ UInt64($1)) &* 0x100_0000_01b3
        }
        let url = cache.appendingPathComponent(String(key, radix: 16) + ".\(ext)")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let making = cache.appendingPathComponent(".\(UUID().uuidString).\(ext)")
        try await ffmpeg(arguments, into: making)
        guard rename(making.path, url.path) == 0 else {
            throw TestFailure("could not keep the fixture \(url.path): \(String(cString: strerror(errno)))")
        }
        return url
    }

    private static func ffmpeg(_ arguments: [String], into url: URL) async throws {
        let result = try await run("ffmpeg", ["-v", "error", "-y"] + arguments + [url.path])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not make \(url.lastPathComponent): \(result.error)") }
    }

    /// A library of one saved audio clip and `rows` more rows ("Clip 1" to "Clip <rows>", notes
    /// "notes 1"..., a second apart), written by sqlite3 in one statement as `scripts/bench`
    /// makes its libraries: a list of 100,000 in a second. The rows have no media (what lists and
    /// filters reads only rows).
    public static func largeLibrary(rows: Int) async throws -> RecordingLibrary {
        let library = try await Fixture.library(clips: 1)
        let inserted = try await run("sqlite3", [library.url.appendingPathComponent("library.sqlite").path, """
            WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < \(rows)),
            ids AS (SELECT value, lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2)
                    || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))) AS id FROM n)
            INSERT INTO recording (id, type, title, notes, purpose, createdAt, duration, filePath, fileSize, playCount)
            SELECT id, 'audio', 'Clip ' || value, 'notes ' || value, 'motivational',
                   strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || value || ' seconds'), 12.5,
                   'Recordings/audio_' || id || '.m4a', 25641, 0 FROM ids;
            """])
        guard inserted.status == 0 else { throw TestFailure("sqlite3 could not add \(rows) rows: \(inserted.error)") }
        return library
    }

    /// A library of one half-second clip titled `title` whose words file holds `words`, put there
    /// as the store writes any (a transcript's bytes, or bytes no reader takes).
    public static func clip(_ title: String, words: Data) async throws -> (RecordingLibrary, Recording) {
        let library = try await library(titles: [title])
        guard let clip = try library.recordings().first else { throw TestFailure("the clip \(title) was not saved") }
        _ = try library.store.write { tx in try tx.store(words, as: .transcript, of: ClipFiles(clip)) }
        return (library, clip)
    }

    /// A library at a fresh folder in the test's temporary folder, holding `count` saved audio clips
    /// (written off the cooperative pool: each save syncs the database).
    public static func library(clips count: Int = 0, titles: [String] = []) async throws -> RecordingLibrary {
        let source = try await audio(seconds: 0.5)
        defer { try? FileManager.default.removeItem(at: source) }
        let folder = temporaryLibrary()
        return try await offPool {
            let library = try RecordingLibrary(at: folder)
            for index in 0..<max(count, titles.count) {
                let id = RecordingID()
                let copy = ClipFiles(id: id, type: .audio).media(.importing)
                try FileManager.default.copyItem(at: source, to: library.fileURL(copy))
                let title = index < titles.count ? titles[index] : "Clip \(index)"
                try library.store.write { tx in
                    try tx.save(copy, as: Recording(
                        id: id, type: .audio, title: title, createdAt: Date(timeIntervalSince1970: 1_790_000_000 + Double(index)),
                        duration: 0.5, filePath: copy.path, fileSize: 0))
                }
            }
            return library
        }
    }
}
