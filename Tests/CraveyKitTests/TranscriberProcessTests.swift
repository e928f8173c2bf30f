import CraveyCommands
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCore
@testable import CraveyKit

/// The transcriber's process as cravey drives it, with helpers that misbehave: shell scripts in
/// its place, to inject the fault (a line without end on its stderr, an end before its input is
/// read). The real one is `TranscriptTests`'.
@Suite("The transcriber's process: a helper's faults", .temporaryFiles)
struct TranscriberProcessTests {
    /// A transcriber whose helper is a shell script of `body` (``writeScript(_:to:)``: written by
    /// this process, starting it once failed with ETXTBSY).
    func helper(_ body: String) async throws -> Transcriber {
        let script = temporaryFolder().appendingPathComponent("cravey-transcriber-\(UUID().uuidString.prefix(8))")
        try await writeScript("#!/bin/sh\n\(body)\n", to: script)
        return Transcriber(executable: script)
    }

    /// What `transcriber` makes of `seconds` of silence (off the cooperative pool), and the progress it reported.
    func transcribe(with transcriber: Transcriber, seconds: Int = 1) async -> (Result<Transcript, any Error>, [Double]) {
        let progress = Locked<[Double]>([])
        do {
            let transcript = try await offPool {
                try transcriber.transcribe(progress: { seconds in progress.withLock { $0.append(seconds) } }) { write in
                    for _ in 0..<seconds { try write([Float](repeating: 0, count: 16_000)) }
                }
            }
            return (.success(transcript), progress.withLock { $0 })
        } catch {
            return (.failure(error), progress.withLock { $0 })
        }
    }

    static let words = #"{"language":"en","words":[{"start":0.1,"end":0.5,"text":"Hello."}]}"#

    @Test("a stderr line of 8 MB without a line break is read through and dropped: the lines after it are read, the words come back")
    func endlessLine() async throws {
        let transcriber = try await helper("""
            head -c 8000000 /dev/zero | tr '\\0' x >&2
            printf '\\nprogress 0.5\\n' >&2
            cat > /dev/null
            echo '\(Self.words)'
            """)
        let (result, progress) = await transcribe(with: transcriber)
        #expect(try result.get().words.map(\.text) == ["Hello."])
        #expect(progress == [0.5])
    }

    @Test("a line of the longest length is read, one byte more is dropped")
    func longestLine() async throws {
        let prefix = Transcriber.programName + ": "
        for (length, kept) in [(Transcriber.longestLine, true), (Transcriber.longestLine + 1, false)] {
            let transcriber = try await helper("""
                cat > /dev/null
                printf '\(prefix)' >&2
                head -c \(length - prefix.utf8.count) /dev/zero | tr '\\0' z >&2
                echo >&2
                exit 1
                """)
            let (result, _) = await transcribe(with: transcriber)
            #expect {
                try result.get()
            } throws: { error in
                guard let error = error as? CraveyError else { return false }
                let said = error.message.contains(String(repeating: "z", count: 100))
                return said == kept && error.message.hasPrefix("The transcriber failed (exit 1)") && (kept || error.message.count < 100)
            }
        }
    }

    @Test("a helper that ends (exit 0) before it has read the sound: an error naming it and saying to install it again, nothing stored")
    func endsBeforeReading() async throws {
        let transcriber = try await helper("exit 0")
        // 16 s of sound: more than a pipe holds, so the write finds the helper gone.
        let (result, _) = await transcribe(with: transcriber, seconds: 16)
        #expect {
            try result.get()
        } throws: { error in
            guard let error = error as? CraveyError else { return false }
            let text = Messages.text(for: error)
            return error.kind == .unavailable && error.advice == [.installTranscriber]
                && text.contains("The transcriber \(transcriber.executable.path) ended (exit 0) before it had read all of the clip's sound")
                && text.contains("nothing was stored") && text.contains("scripts/install --transcribe")
        }
    }
}
