import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A new clip's words heard once it is saved (`transcribe.auto`, on while the transcriber is
/// installed), with the checkout's real transcriber; the language setting; and a transcription
/// that fails or is killed leaving the clip as saved.
@Suite("Transcripts after a recording and an import", .temporaryFiles)
struct AutoTranscriptTests {
    /// The phrases spoken in each clip.
    static let phrases = ["Good morning.", "Seven boats came in before midnight."]

    /// The clip's transcript as `cravey transcript --json` prints it; nil when it has none.
    func transcript(_ id: String, in library: URL) async throws -> Transcript? {
        let printed = try await Cravey.run(["transcript", id, "--json", "--library", library.path], environment: try Speech.environment())
        return printed.status == 0 ? try JSONDecoder().decode(Transcript.self, from: Data(printed.output.utf8)) : nil
    }

    /// The one clip's id in `library`.
    func onlyID(in library: URL) async throws -> String {
        let rows = try await listed(library)
        try #require(rows.count == 1, "\(rows.count) clips")
        return rows[0].id.description
    }

    /// The files of the library's Recordings folder, by name.
    func recordingFiles(_ library: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path).sorted()
    }

    @Test("an import is saved first, then its words follow in the same run; the language heard is stored and shown; transcribe.auto = false leaves them to `cravey transcribe`")
    func afterImport() async throws {
        let (speech, _) = try await Speech.clip(Self.phrases, lead: 0.3)
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", speech.path, "--title", "Harbour", "--library", library.path], environment: try Speech.environment())
        #expect(imported.status == 0, "\(imported.error)")
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let heard = try #require(try await transcript(id, in: library), "no transcript after the import: \(imported.error)")
        #expect(heard.language == "en" && heard.words.contains { Speech.letters($0.text) == "midnight" }, "\(heard)")
        let text = try await Cravey.run(["transcript", id, "--library", library.path], environment: try Speech.environment())
        #expect(text.status == 0 && text.error.contains("Language: en") && text.output.lowercased().contains("midnight"), "\(text.error)")

        // Off: the clip alone, as before.
        let off = try Cravey.settings("transcribe.auto = false\n").merging(try Speech.environment()) { $1 }
        let second = temporaryLibrary()
        let plain = try await Cravey.run(["import", speech.path, "--library", second.path], environment: off)
        #expect(plain.status == 0, "\(plain.error)")
        #expect(try await transcript(try await onlyID(in: second), in: second) == nil)
        #expect(!(try recordingFiles(second)).contains { $0.hasSuffix(".words.json") })
    }

    @Test("a clean-up kept with --yes hears the clip's words again from the cleaned sound (the old sound's went with it); a clip that had none gets none")
    func afterClean() async throws {
        // Given speech over pink noise imported, its words heard with it
        let noisy = try await Fixture.speechOverNoise(noise: 0.02)
        let library = temporaryLibrary()
        let environment = try Speech.environment()
        let imported = try await Cravey.run(["import", noisy.path, "--library", library.path], environment: environment)
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try #require(try await transcript(id, in: library), "no words after the import: \(imported.error)")
        #expect(before.words.contains { Speech.letters($0.text) == "craving" }, "\(before)")
        let words = library.appendingPathComponent("Recordings/audio_\(id).words.json")
        let heardBefore = try FileManager.default.attributesOfItem(atPath: words.path)[.modificationDate] as? Date

        // When the clean-up is kept
        let cleaned = try await Cravey.run(["clean", id, "--yes", "--library", library.path], environment: environment)
        #expect(cleaned.status == 0, "\(cleaned.error)")

        // Then the words are there again, heard from the new sound (a new file, written after)
        let after = try #require(try await transcript(id, in: library), "no words after the clean-up: \(cleaned.error)")
        #expect(after.words.contains { Speech.letters($0.text) == "craving" }, "\(after)")
        let heardAfter = try FileManager.default.attributesOfItem(atPath: words.path)[.modificationDate] as? Date
        #expect(heardBefore != nil && heardAfter != nil && heardAfter! > heardBefore!)

        // A clip that had no words gets none from a clean-up
        let off = try Cravey.settings("transcribe.auto = false\n").merging(environment) { $1 }
        let second = temporaryLibrary()
        let plain = try await Cravey.run(["import", noisy.path, "--library", second.path], environment: off)
        let plainID = plain.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let cleanedPlain = try await Cravey.run(["clean", plainID, "--yes", "--library", second.path], environment: environment)
        #expect(cleanedPlain.status == 0, "\(cleanedPlain.error)")
        #expect(try await transcript(plainID, in: second) == nil)
    }

    @Test("transcribe.language is handed to the transcriber, and the transcript keeps the language it was heard in")
    func languageSetting() async throws {
        let (speech, _) = try await Speech.clip(["Good morning."], lead: 0.3)
        let library = temporaryLibrary()
        let german = try Cravey.settings("transcribe.language = \"de\"\n").merging(try Speech.environment()) { $1 }
        let imported = try await Cravey.run(["import", speech.path, "--library", library.path], environment: german)
        #expect(imported.status == 0, "\(imported.error)")
        let heard = try #require(try await transcript(try await onlyID(in: library), in: library))
        #expect(heard.language == "de", "\(heard)")
    }

    @Test("cravey play on a terminal shows the sentence being said on its line, the word said then in brackets under NO_COLOR; on TERM=dumb each sentence as a line")
    func wordsAsItPlays() async throws {
        let (speech, _) = try await Speech.clip(Self.phrases, lead: 0.3)
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", speech.path, "--library", library.path], environment: try Speech.environment())
        try #require(imported.status == 0, "\(imported.error)")
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let heard = try #require(try await transcript(id, in: library))
        let midnight = try #require(heard.words.first { Speech.letters($0.text) == "midnight" }, "\(heard)")
        let sink = try await VirtualMicrophone()
        let played = try await Cravey.runOnTerminal(["play", id, "--no-count", "--device", sink.sinkName, "--library", library.path],
                                                    environment: ["NO_COLOR": "1"])
        #expect(played.status == 0, "\(played.output)")
        #expect(played.output.contains("[" + midnight.text + "]"), "\(played.output)")
        // A terminal that only prints lines: each sentence a line as it begins, nothing marked.
        let dumb = try await Cravey.runOnTerminal(["play", id, "--no-count", "--device", sink.sinkName, "--library", library.path],
                                                  environment: ["NO_COLOR": "1", "TERM": "dumb"])
        let second = heard.sentences.last.map { $0.map(\.text).joined(separator: " ") } ?? ""
        #expect(dumb.status == 0 && dumb.output.contains(second + "\r\n") && !dumb.output.contains("[" + midnight.text + "]"), "\(dumb.output)")
    }

    @Test("cravey record on a terminal, given no title: the words are heard after the save, with their progress, and the look back proposes the first ones as the title, which Enter at t takes",
          .timeLimit(.minutes(3)))
    func lookBackProposesTitle() async throws {
        let microphone = try await VirtualMicrophone()
        let wav = temporaryFolder().appendingPathComponent("spoken.wav")
        let spoken = try await run("espeak-ng", ["-w", wav.path, "Seven boats came in."])
        try #require(spoken.status == 0, "\(spoken.error)")
        let library = temporaryLibrary()
        let terminal = try Cravey.startOnTerminal(["record", "--seconds", "4", "--library", library.path, "--device", microphone.monitor],
                                                  environment: try Speech.environment())
        try await waitForAudio(in: library, seconds: 0.3)
        _ = try await run("paplay", ["-d", microphone.sinkName, wav.path])
        let proposed = try await offPool { terminal.waitUntilShown(within: 120) { $0.contains("(t, then Enter, takes it).") } }
        #expect(proposed, "\(terminal.output.debugDescription)")
        let shown = terminal.output
        #expect(shown.contains("Hearing the words: 0% (Ctrl-C skips)"), "\(shown.debugDescription)")
        let title = try #require(shown.firstMatch(of: #/Its first words make a title: "([^"]+)"/#).map { String($0.1) })
        terminal.type("t")
        _ = try await offPool { terminal.waitUntilShown(within: 30) { $0.contains("[Enter: \(title)]") } }
        terminal.type("\n")
        _ = try await offPool { terminal.waitUntilShown(within: 30) { $0.contains("Updated \"\(title)\"") } }
        terminal.type("\n")
        _ = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0)
        let kept = try await listed(library)
        #expect(kept.first?.title == title, "\(kept.map(\.title))")
    }

    @Test("a transcriber that fails leaves the import saved (exit 0), says so with how to make the words later, and writes no words")
    func failureKeepsTheClip() async throws {
        // A fault injected: a transcriber that reads its audio, then fails.
        let broken = temporaryFolder().appendingPathComponent("cravey-transcriber")
        try await writeScript("#!/bin/sh\ncat > /dev/null\necho 'cravey-transcriber: the model broke' >&2\nexit 1\n", to: broken)
        let (speech, _) = try await Speech.clip(["Good morning."], lead: 0.3)
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", speech.path, "--library", library.path], environment: ["CRAVEY_TRANSCRIBER": broken.path])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.error.contains("the words were not heard (the clip is saved)") && imported.error.contains("the model broke")
                && imported.error.contains("cravey transcribe "), "\(imported.error)")
        let id = try await onlyID(in: library)
        #expect(imported.output.trimmingCharacters(in: .whitespacesAndNewlines) == id)
        let files = try recordingFiles(library)
        #expect(!files.contains { $0.hasSuffix(".words.json") }, "\(files)")
    }

    @Test("cravey killed while it hears a new clip's words: the clip is kept as saved, the transcriber ends with it, no words and no half file are left, doctor finds the library healthy")
    func killedWhileHearing() async throws {
        let (speech, _) = try await Speech.clip(Self.phrases, lead: 0.3)
        let library = temporaryLibrary()
        let importing = try Cravey.start(["import", speech.path, "--library", library.path], environment: try Speech.environment())
        let helper = try await transcriber(startedBy: importing.processIdentifier)
        kill(importing.processIdentifier, SIGKILL)
        await exit(of: importing)
        // Gone, or a zombie its new parent has not reaped yet.
        let ended = try await poll(within: 10, every: 0.05) {
            (try? String(contentsOfFile: "/proc/\(helper)/status", encoding: .utf8)).map { $0.contains("State:\tZ") } ?? true
        }
        #expect(ended, "the transcriber \(helper) outlived cravey")
        _ = try await onlyID(in: library)
        let files = try recordingFiles(library)
        #expect(files.filter { $0.hasSuffix(".m4a") }.count == 1 && !files.contains { $0.contains(".words") || $0.contains(".partial") || $0.contains(".importing") },
                "\(files)")
        let doctor = try await Cravey.run(["doctor", "--library", library.path])
        #expect(doctor.status == 0, "\(doctor.output) \(doctor.error)")
    }

    @Test("a toggled recording's stop returns once the clip is saved, not waiting for its words; the recording process then hears them (the words spoken into the microphone)",
          .timeLimit(.minutes(3)))
    func afterToggledRecording() async throws {
        let microphone = try await VirtualMicrophone()
        let wav = temporaryFolder().appendingPathComponent("spoken.wav")
        let spoken = try await run("espeak-ng", ["-w", wav.path, Self.phrases[1]])
        try #require(spoken.status == 0, "\(spoken.error)")
        let library = temporaryLibrary()
        let first = try Cravey.start(["record", "--toggle", "--library", library.path, "--device", microphone.monitor], environment: try Speech.environment())
        try await waitForAudio(in: library, seconds: 0.5)
        let said = try await run("paplay", ["-d", microphone.sinkName, wav.path])
        #expect(said.status == 0, "\(said.error)")
        let second = try await Cravey.run(["record", "--toggle", "--library", library.path], environment: try Speech.environment())
        #expect(second.status == 0 && second.error.contains("it is saved"), "\(second.error)")
        // Saved and let go: the words are still being heard.
        let id = try await onlyID(in: library)
        #expect(first.isRunning, "the recording process had ended before the stop returned: the stop waited for the words")
        await exit(of: first)
        #expect(first.terminationStatus == 0)
        // Heard through the sound server and AAC: most of the words, if not each.
        let heard = try #require(try await transcript(id, in: library))
        let known = Set(["seven", "boats", "came", "in", "before", "midnight"])
        #expect(heard.words.filter { known.contains(Speech.letters($0.text)) }.count >= 3, "\(heard)")
    }

    /// The process id of the transcriber `parent` started, once it runs.
    func transcriber(startedBy parent: pid_t) async throws -> pid_t {
        let found = Locked<pid_t?>(nil)
        let seen = try await poll(within: 60, every: 0.02) {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = pid_t(entry),
                      let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                      status.split(separator: "\n").contains(where: { $0 == "PPid:\t\(parent)" }),
                      let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                      String(decoding: command, as: UTF8.self).contains(Transcriber.programName)
                else { continue }
                found.withLock { $0 = pid }
                return true
            }
            return false
        }
        guard seen, let pid = found.withLock({ $0 }) else { throw TestFailure("no transcriber started by \(parent) within 60 s") }
        return pid
    }
}
