import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Several processes on one library at once: a clip being saved is never lost, and a half-saved
/// clip is never mistaken for an orphan (issue 9, items 8 to 10). Each trial runs the commands
/// of the issue, as a shell runs them.
@Suite("Races: commands sharing one library", .temporaryFiles)
struct RaceTests {
    /// Runs `script` with `sh`, with `$CRAVEY` the binary and `$L` a fresh library; returns the
    /// library and what the script printed.
    func trial(_ script: String) async throws -> (library: URL, output: String) {
        let library = temporaryLibrary()
        let result = try await run("sh", ["-c", script], environment: Cravey.environment(["CRAVEY": Cravey.executable, "L": library.path]))
        return (library, result.output + result.error)
    }

    /// Runs `command` (a `cravey` command line, `$L` the library) in the background while
    /// delete-all runs again and again until it ends, `trials` times: each time the command exits
    /// 0 (its output says `<label>=0`) and doctor finds the rows and the files agreeing.
    func raceWithDeleteAll(_ command: String, label: String, trials: Int) async throws {
        for _ in 0..<trials {
            let (library, output) = try await trial("""
                \(command) --library "$L" >/dev/null 2>"$L.err" & P=$!
                while kill -0 $P 2>/dev/null; do "$CRAVEY" delete-all --yes --library "$L" >/dev/null 2>&1; done
                wait $P; echo "\(label)=$?"; cat "$L.err"
                """)
            #expect(output.contains("\(label)=0"), "\(output)")
            let doctor = try await doctor(library)
            #expect(doctor.status == 0, "\(doctor.output)")
        }
    }

    /// `doctor` on the library: exit 0 when the rows and the files agree.
    func doctor(_ library: URL) async throws -> CommandResult {
        try await Cravey.run(["doctor", "--library", library.path])
    }

    @Test("delete-all in a loop while `record --seconds 1` saves: the record exits 0 and the library stays consistent", .timeLimit(.minutes(3)))
    func deleteAllWhileRecording() async throws {
        // Given a recording of one second, and delete-all run again and again until it ends;
        // then the recording was saved, and no row lost its file nor any file its row
        try await raceWithDeleteAll("\"$CRAVEY\" record --seconds 1", label: "record", trials: 6)
    }

    @Test("import racing delete-all: an import that exits 0 left a row with its file, or a later delete-all removed both", .timeLimit(.minutes(3)))
    func importWhileDeletingAll() async throws {
        let clip = try await Fixture.audio(seconds: 2)
        try await raceWithDeleteAll("\"$CRAVEY\" import '\(clip.path)'", label: "import", trials: 12)
    }

    @Test("doctor --repair in a loop while a titled recording saves: no 'Recovered' entry, and the titled one keeps its file", .timeLimit(.minutes(3)))
    func repairWhileRecording() async throws {
        for _ in 0..<6 {
            let (library, output) = try await trial("""
                "$CRAVEY" record --seconds 1 --title Mine --library "$L" >/dev/null 2>"$L.err" & R=$!
                while kill -0 $R 2>/dev/null; do "$CRAVEY" doctor --repair --library "$L" >/dev/null 2>&1; done
                wait $R; echo "record=$?"; cat "$L.err"
                "$CRAVEY" doctor --repair --library "$L" >/dev/null 2>&1; echo "repair=$?"
                """)
            #expect(output.contains("record=0") && output.contains("repair=0"), "\(output)")
            let opened = try RecordingLibrary(at: library)
            #expect(try opened.recordings().map(\.title) == ["Mine"], "\(output)")
            let doctor = try await doctor(library)
            #expect(doctor.status == 0, "\(doctor.output)")
        }
    }
}
