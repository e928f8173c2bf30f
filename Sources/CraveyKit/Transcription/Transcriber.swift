import CraveyCore
import Foundation
import Glibc
import SystemPackage

/// The optional transcriber: `cravey-transcriber`, a Python helper (faster-whisper and the
/// Whisper base model in a private environment; `Transcriber/` in the repository) that
/// `scripts/install --transcribe` puts beside the programs.
///
/// It reads 16 kHz mono float samples on its stdin (``SpeechAudio``, cravey's own decoding) and
/// writes the words with their times as JSON on its stdout, once, at its end: nothing of a clip
/// is ever on its command line, and a transcription stopped writes nothing. It runs at nice 10,
/// opens no socket (the model is loaded from its own folder only, checked by its SHA-256
/// first), and its stderr carries its progress ("progress SECONDS") and, on a failure, one line
/// saying what failed.
package struct Transcriber: Sendable {
    /// The helper's path.
    package let executable: URL

    package init(executable: URL) {
        self.executable = executable
    }

    /// The name of the helper beside the programs.
    package static let programName = "cravey-transcriber"

    /// The transcriber this program runs: `$CRAVEY_TRANSCRIBER` when it is set (empty: none),
    /// else ``programName`` beside this executable, else, for a checkout's build
    /// (`.build/<config>/` or `.build/<triple>/<config>/`), the one `scripts/setup --transcribe`
    /// made in `.build/transcriber` (``path(environment:executable:)``). Throws ``CraveyError``
    /// `.unavailable` (advice: install it) when there is none.
    package static func installed() throws(CraveyError) -> Transcriber {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map(URL.init(fileURLWithPath:))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        switch path(environment: ProcessInfo.processInfo.environment["CRAVEY_TRANSCRIBER"], executable: executable) {
        case .found(let path):
            return Transcriber(executable: URL(fileURLWithPath: path))
        case .missing(let looked):
            throw CraveyError(.unavailable, "The transcriber is not installed (\(looked)): cravey works without it, but cannot hear the words of a clip.",
                              advice: .installTranscriber)
        }
    }

    /// Where the transcriber is, or where it was looked for.
    package enum Place: Equatable {
        case found(String)
        /// What was looked at, for the message: "no /usr/local/bin/cravey-transcriber".
        case missing(String)
    }

    /// The transcriber for a program at `executable` given `$CRAVEY_TRANSCRIBER` (`variable`, nil
    /// when it is not set): the variable's path when set, none when it is empty (the tests'
    /// children, which ask for it by name); else the helper beside the program, else the
    /// checkout's `.build/transcriber/cravey-transcriber` for a program one or two folders
    /// under `.build`.
    package static func path(environment variable: String?, executable: URL) -> Place {
        let files = FileManager.default
        if let variable {
            if variable.isEmpty { return .missing("CRAVEY_TRANSCRIBER is empty") }
            return files.isExecutableFile(atPath: variable) ? .found(variable) : .missing("no \(variable)")
        }
        let folder = executable.deletingLastPathComponent()
        let beside = folder.appendingPathComponent(programName).path
        if files.isExecutableFile(atPath: beside) { return .found(beside) }
        var build = folder
        for _ in 0..<2 {
            build = build.deletingLastPathComponent()
            guard build.lastPathComponent == ".build" else { continue }
            let made = build.appendingPathComponent("transcriber").appendingPathComponent(programName).path
            return files.isExecutableFile(atPath: made) ? .found(made) : .missing("no \(beside), nor \(made)")
        }
        return .missing("no \(beside)")
    }

    /// A transcription under way, which ``cancel()`` stops from any thread: its helper is sent
    /// SIGTERM, and ``run(progress:feed:)`` throws `CancellationError`.
    package final class Run: Sendable {
        private let state = Locked<(cancelled: Bool, helper: ChildProcess?)>((false, nil))

        package init() {}

        package func cancel() {
            state.withLock { state in
                state.cancelled = true
                state.helper?.signal(SIGTERM)
            }
        }

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        /// Records the helper; false (the helper stopped at once) when the run was cancelled already.
        func started(_ helper: ChildProcess) -> Bool {
            state.withLock { state in
                state.helper = helper
                if state.cancelled { helper.signal(SIGTERM) }
                return !state.cancelled
            }
        }

        func ended() {
            state.withLock { $0.helper = nil }
        }
    }

    /// Starts the helper, lets `feed` write the audio into it (``SpeechAudio/decode(_:_:)``
    /// gives the samples), and returns the words it heard, in `language` (a code of
    /// ``Transcript/languages``; nil lets the helper tell, and the transcript says which it
    /// heard), listening for `hotwords` (a person's names and terms, ``LibraryVocabulary``:
    /// handed over in its environment, which only its user reads, never on its command line). `progress` is called with the seconds of audio transcribed so far. Blocking: run
    /// it off the cooperative pool.
    ///
    /// Throws `CancellationError` when `run` was cancelled, and ``CraveyError``: `.unavailable`
    /// when the helper cannot start, its model is missing or altered (nothing loaded), or it
    /// ended well before it had read the sound; `.other` when it failed or was stopped otherwise; and whatever `feed` throws (the helper
    /// is stopped then).
    package func transcribe(_ run: Run = Run(), language: String? = nil, hotwords: [String] = [], progress: @escaping @Sendable (Double) -> Void = { _ in },
                            feed: (_ write: ([Float]) throws -> Void) throws -> Void) throws -> Transcript {
        var environment = ProcessInfo.processInfo.environment
        environment["HF_HUB_OFFLINE"] = "1"
        // The helper ends with this process (PR_SET_PDEATHSIG), and at once if it is gone already.
        environment["CRAVEY_TRANSCRIBER_PARENT"] = String(getpid())
        environment["CRAVEY_TRANSCRIBER_HOTWORDS"] = hotwords.isEmpty ? nil : hotwords.joined(separator: ", ")
        let helper: ChildProcess
        do {
            helper = try ChildProcess(executable.path, language.map { ["--language", $0] } ?? [], environment: environment,
                                      input: .pipe, output: .pipe, errors: .pipe)
        } catch {
            throw CraveyError(.unavailable, "Cannot start the transcriber \(executable.path): \(error.errno).",
                              advice: .installTranscriber, underlying: error)
        }
        defer { run.ended() }
        let words = Locked(Data())
        let failure = Locked<String?>(nil)
        let readers = [
            DedicatedThread.start(named: "cravey.words") { words.withLock { $0 = helper.outputToEnd() } },
            DedicatedThread.start(named: "cravey.progress") {
                Self.readLines(of: helper.errors!) { line in
                    if line.hasPrefix("progress "), let seconds = Double(line.dropFirst(9)) {
                        progress(seconds)
                    } else if line.hasPrefix(Self.programName + ": ") {
                        failure.withLock { $0 = String(line.dropFirst(Self.programName.count + 2)) }
                    }
                }
            },
        ]
        var fed: (any Error)?
        if run.started(helper) {
            let pipe = helper.input!.rawValue
            do {
                try feed { samples in
                    if run.isCancelled { throw CancellationError() }
                    try Self.write(samples, to: pipe)
                }
            } catch {
                fed = error
                if !(error is BrokenPipe) { helper.signal(SIGTERM) }
            }
        }
        helper.closeInput()
        let ended = helper.wait()
        readers.forEach { $0.join() }
        if run.isCancelled { throw CancellationError() }
        let said = failure.withLock { $0 }
        if let fed, !(fed is BrokenPipe), ended != .exit(0) { throw fed }
        switch ended {
        case .signal(let number):
            throw CraveyError(.other, "The transcriber was stopped by signal \(number); nothing was stored.")
        case .exit(0):
            if fed is BrokenPipe {
                throw CraveyError(.unavailable, "The transcriber \(executable.path) ended (exit 0) before it had read all of the clip's sound: it is damaged, or not cravey's; nothing was stored.",
                                  advice: .installTranscriber)
            }
            if let fed { throw fed }
            guard let transcript = Transcript(data: words.withLock { $0 }) else {
                throw CraveyError(.other, "The transcriber \(executable.path) wrote what is not a transcript; nothing was stored.")
            }
            return transcript
        case .exit(let status) where status == 66 || status == 69:
            throw CraveyError(.unavailable, "The transcriber cannot be used: \(said ?? "its model is missing or altered").", advice: .installTranscriber)
        case .exit(let status):
            throw CraveyError(.other, "The transcriber failed (exit \(status))\(said.map { ": \($0)" } ?? ""); nothing was stored.")
        }
    }

    /// The helper closed its stdin (it failed, or was stopped): its exit says why.
    private struct BrokenPipe: Error {}

    /// Writes `samples` (native float, little-endian on every Linux cravey runs on) to `pipe` in
    /// full. SIGPIPE is blocked on this thread while it writes, so a helper gone early is an
    /// EPIPE here (``BrokenPipe``), never the end of an embedding program; a SIGPIPE left pending
    /// is taken before the mask is restored.
    private static func write(_ samples: [Float], to pipe: Int32) throws {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var none = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &none)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        try samples.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(pipe, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { throw BrokenPipe() }
                    throw CraveyError(.other, "Cannot hand the audio to the transcriber: \(String(cString: strerror(errno))).")
                }
                offset += written
            }
        }
    }

    /// The longest line of the helper's stderr that is read: a longer one is dropped whole (read
    /// to its line break and thrown away), so that a helper writing without a break costs neither
    /// memory nor time.
    static let longestLine = 64 * 1024

    /// Hands `body` each line read from `errors` as it comes, until its end, dropping a line
    /// longer than ``longestLine``. Each byte is looked at once. Blocks until `errors` ends.
    static func readLines(of errors: FileDescriptor, _ body: (String) -> Void) {
        var line: [UInt8] = []
        var dropping = false
        /// Adds `bytes` to the line, or drops it when it grows too long.
        func add(_ bytes: ArraySlice<UInt8>) {
            guard !dropping else { return }
            if line.count + bytes.count > longestLine {
                (dropping, line) = (true, [])
            } else {
                line += bytes
            }
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while let count = try? buffer.withUnsafeMutableBytes({ try errors.read(into: $0, retryOnInterrupt: true) }), count > 0 {
            var start = 0
            while let newline = buffer[start..<count].firstIndex(of: UInt8(ascii: "\n")) {
                add(buffer[start..<newline])
                if !dropping { body(String(decoding: line, as: UTF8.self)) }
                (dropping, start) = (false, newline + 1)
                line.removeAll(keepingCapacity: true)
            }
            add(buffer[start..<count])
        }
        if !dropping && !line.isEmpty { body(String(decoding: line, as: UTF8.self)) }
    }
}
