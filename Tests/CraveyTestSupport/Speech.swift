import Foundation

/// Speech made at test time by espeak-ng, and the checkout's real transcriber, which
/// `scripts/setup --transcribe` makes in `.build/transcriber` (scripts/test runs it): a test that
/// needs it fails when it is missing, it never skips.
public enum Speech {
    /// The helper `scripts/setup --transcribe` made.
    public static let transcriber = TestSoundServer.packageRoot.appendingPathComponent(".build/transcriber/cravey-transcriber")

    /// The helper's path, or a failure saying how to make it.
    public static func requireTranscriber() throws -> URL {
        guard FileManager.default.isExecutableFile(atPath: transcriber.path) else {
            throw TestFailure("The transcriber is missing at \(transcriber.path): run scripts/setup --transcribe (scripts/test does).")
        }
        return transcriber
    }

    /// Says in this test process that there is no transcriber (`CRAVEY_TRANSCRIBER` empty), as
    /// ``Cravey/environment(_:)`` says to the processes a test starts: a command run in process
    /// (``Outcome``) finds none, though the checkout's build would find `.build/transcriber`
    /// by itself, and a new clip's words are heard only where a test asks for them (by name:
    /// ``environment()``, or a ``Transcriber`` handed to the call). Set once, before the first command.
    public static let noTranscriber: Void = { setenv("CRAVEY_TRANSCRIBER", "", 1) }()

    /// The environment that points `cravey` at the checkout's transcriber.
    public static func environment() throws -> [String: String] {
        ["CRAVEY_TRANSCRIBER": try requireTranscriber().path]
    }

    /// An AAC .m4a (mono, 48 kHz) of `phrases` spoken by espeak-ng one after another, with
    /// `lead` seconds of silence first and `gap` seconds between them, and the second each phrase
    /// starts at (espeak-ng starts speaking within a few milliseconds of its file's start).
    public static func clip(_ phrases: [String], lead: Double = 0.5, gap: Double = 1.5) async throws -> (url: URL, starts: [Double]) {
        let folder = temporaryFolder()
        var inputs: [String] = []
        var starts: [Double] = []
        var at = lead
        for (index, phrase) in phrases.enumerated() {
            let wav = folder.appendingPathComponent("phrase-\(UUID().uuidString.prefix(8)).wav")
            let spoken = try await run("espeak-ng", ["-w", wav.path, phrase])
            guard spoken.status == 0 else { throw TestFailure("espeak-ng could not speak \(phrase): \(spoken.error)") }
            let probed = try await run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", wav.path])
            guard let duration = Double(probed.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw TestFailure("ffprobe read no duration of \(wav.path): \(probed.error)")
            }
            starts.append(at)
            at += duration + (index + 1 < phrases.count ? gap : 0)
            inputs += ["-i", wav.path]
        }
        // Silence before each phrase (lead, then gap), all resampled to 48 kHz mono and joined.
        var graph = ""
        for index in phrases.indices {
            let silence = index == 0 ? lead : gap
            graph += "aevalsrc=0:s=48000:d=\(silence)[s\(index)];[\(index):a]aresample=48000,aformat=channel_layouts=mono[p\(index)];"
        }
        graph += phrases.indices.map { "[s\($0)][p\($0)]" }.joined() + "concat=n=\(phrases.count * 2):v=0:a=1[out]"
        let url = folder.appendingPathComponent("speech-\(UUID().uuidString.prefix(8)).m4a")
        let made = try await run("ffmpeg", ["-v", "error", "-y"] + inputs + ["-filter_complex", graph, "-map", "[out]",
                                 "-ac", "1", "-ar", "48000", "-c:a", "aac", "-b:a", "96k", url.path])
        guard made.status == 0 else { throw TestFailure("ffmpeg could not join the speech: \(made.error)") }
        return (url, starts)
    }

    /// `media`'s sound as the transcriber reads it on stdin: 16 kHz mono 32-bit floats, by the
    /// ffmpeg tool.
    public static func samples(of media: URL) async throws -> Data {
        let decoded = folderFile("samples", "f32")
        let made = try await run("ffmpeg", ["-v", "error", "-y", "-i", media.path, "-ac", "1", "-ar", "16000", "-f", "f32le", decoded.path])
        guard made.status == 0 else { throw TestFailure("ffmpeg could not decode \(media.path): \(made.error)") }
        return try Data(contentsOf: decoded)
    }

    /// A word as the transcriber writes it, reduced to its lowercase letters ("Lighthouse," is "lighthouse").
    public static func letters(_ word: String) -> String {
        String(word.lowercased().unicodeScalars.filter { CharacterSet.letters.contains($0) }.map(Character.init))
    }

    private static func folderFile(_ name: String, _ ext: String) -> URL {
        temporaryFolder().appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).\(ext)")
    }
}
