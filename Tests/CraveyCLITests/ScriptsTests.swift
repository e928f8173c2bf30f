import CraveyTestSupport
import Foundation
import Testing

/// The scripts in `scripts/` as a person first meets them: `--help` says what each does and runs
/// nothing (the campaigns once started a full run), and an argument a script does not know is
/// refused with 64, as cravey's bad usage is. `scripts/check-scripts` checks each script so.
@Suite("scripts/")
struct ScriptsTests {
    @Test("every script answers --help (its usage, exit 0, nothing run) and refuses an argument it does not know (64)")
    func scriptsExplainThemselves() async throws {
        // When scripts/check-scripts runs every script with --help, then with --bogus
        let check = TestSoundServer.packageRoot.appendingPathComponent("scripts/check-scripts").path
        let result = try await run(check, [])

        // Then each answered as it should, the campaigns and the fuzzer among them
        #expect(result.status == 0, "\(result.error)")
        let summary = result.error.split(separator: "\n").last.map(String.init) ?? ""
        let checked = Set(summary.dropFirst("scripts/check-scripts: ".count).prefix { $0 != ":" }.split(separator: " ").map(String.init))
        for script in ["crashtest", "powertest", "racetest", "fuzz", "bench", "test", "install", "pulse", "demo", "setup", "package-check"] {
            #expect(checked.contains(script), "scripts/\(script) was not checked: \(result.error)")
        }
    }
}
