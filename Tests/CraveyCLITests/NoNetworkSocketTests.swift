import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// cravey opens no network socket, in the commands that start a helper process too: the
/// transcriber, the person's editor, the device lister of the shells' completion, the desktop's
/// opener. Each runs under `strace -f` (it and every process it starts): no AF_INET or AF_INET6
/// socket, and nothing of Foundation's on stderr ("Could not create wakeup socket pair for
/// CFSocket", as a sandbox without a network showed when Foundation's `Process` started them).
@Suite("No network socket, helper processes included (strace)", .temporaryFiles)
struct NoNetworkSocketTests {
    /// Runs `cravey arguments` under `strace -f -e trace=socket`: its result, and every socket call
    /// it and its children made.
    func traced(_ arguments: [String], environment: [String: String] = [:]) async throws -> (result: CommandResult, sockets: [String]) {
        let log = temporaryFolder().appendingPathComponent("strace-\(UUID().uuidString.prefix(8)).txt")
        let result = try await run("strace", ["-f", "-e", "trace=socket", "-o", log.path, Cravey.executable] + arguments,
                                   environment: Cravey.environment(environment))
        let sockets = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init).filter { $0.contains("socket(") }
        return (result, sockets)
    }

    /// Expects no network socket among `sockets` and nothing of Foundation's in `error`.
    func expectNoNetwork(_ sockets: [String], _ error: String, _ command: String) {
        #expect(!sockets.contains { $0.contains("AF_INET") }, "\(command): \(sockets)")
        #expect(!error.contains("CFSocket") && !error.contains("***"), "\(command): \(error)")
    }

    @Test("transcribe, with the real transcriber: the words heard, no network socket")
    func transcribe() async throws {
        let (speech, _) = try await Speech.clip(["Good morning."], lead: 0.3)
        let library = temporaryLibrary()
        // Imported without the transcriber (no words heard yet).
        let imported = try await Cravey.run(["import", speech.path, "--library", library.path], environment: ["CRAVEY_TRANSCRIBER": ""])
        try #require(imported.status == 0, "\(imported.error)")
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)

        let (heard, sockets) = try await traced(["transcribe", id, "--library", library.path], environment: try Speech.environment())
        #expect(heard.status == 0 && heard.error.contains("Heard "), "\(heard.error)")
        expectNoNetwork(sockets, heard.error, "transcribe")
    }

    @Test("transcript --edit, with an editor script on its terminal: the words corrected, no network socket")
    func edit() async throws {
        let library = try await Fixture.library(titles: ["Harbour"])
        let clip = try #require(try library.recordings().first)
        let words = Transcript(language: "en", words: [.init(start: 0.5, end: 0.8, text: "Good"), .init(start: 0.8, end: 1.3, text: "morning.")])
        _ = try library.store.write { tx in try tx.store(words.data, as: .transcript, of: ClipFiles(clip)) }
        let editor = temporaryFolder().appendingPathComponent("editor")
        try await writeScript("#!/bin/sh\nsed -i 's/morning/evening/' \"$1\"\n", to: editor)

        let (edited, sockets) = try await traced(["transcript", clip.id.description, "--edit", "--library", library.url.path],
                                                 environment: ["EDITOR": editor.path, "VISUAL": ""])
        #expect(edited.status == 0 && edited.error.contains("Corrected the words of \"Harbour\""), "\(edited.error)")
        #expect(library.transcripts.transcript(of: clip)?.words.map(\.text) == ["Good", "evening."])
        expectNoNetwork(sockets, edited.error, "transcript --edit")
    }

    @Test("the shells' completion of --device, which asks cravey-media for the sound server's sources: listed, no network socket")
    func completion() async throws {
        _ = try await offPool { TestSoundServer.address }
        let sink = try await VirtualMicrophone()
        let (completed, sockets) = try await traced(["---completion", "record", "--", "--device", "2", "0", "cravey", "record", "--device", ""])
        #expect(completed.status == 0 && completed.output.split(separator: "\n").contains { $0 == sink.monitor }, "\(completed.output) \(completed.error)")
        expectNoNetwork(sockets, completed.error, "completion")
    }

    @Test("play --open hands the clip's file to the desktop's opener (xdg-open on PATH): no network socket")
    func open() async throws {
        let library = try await Fixture.library(clips: 1)
        let clip = try #require(try library.recordings().first)
        // The desktop's opener: a script of the test's own on PATH, saying what it was given.
        let bin = temporaryFolder().appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let given = temporaryFolder().appendingPathComponent("opened")
        try await writeScript("#!/bin/sh\necho \"$1\" > '\(given.path)'\n", to: bin.appendingPathComponent("xdg-open"))
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")

        let (opened, sockets) = try await traced(["play", clip.id.description, "--open", "--no-count", "--library", library.url.path],
                                                 environment: ["DISPLAY": ":0", "PATH": path])
        #expect(opened.status == 0 && opened.error.contains("Opened"), "\(opened.error)")
        #expect(try String(contentsOf: given, encoding: .utf8) == (try library.fileURL(of: clip)).path + "\n")
        expectNoNetwork(sockets, opened.error, "play --open")
    }
}
