import CraveyTestSupport
import Foundation
import Testing

/// The fuzz targets built normally (not for libFuzzer) replay inputs; `scripts/fuzz` runs them
/// under libFuzzer and AddressSanitizer.
@Suite("Fuzz regressions", .temporaryFiles)
struct FuzzRegressionTests {
    static let driver = URL(fileURLWithPath: Cravey.executable).deletingLastPathComponent().appendingPathComponent("cravey-fuzz").path
    static let fuzz = MediaFixture.folder.deletingLastPathComponent().appendingPathComponent("Tests/Fuzz")

    @Test("every committed regression input, seed and Media/ fixture passes through its fuzz target, each in under 5 s",
          arguments: ["probe", "thumbnail", "import", "text", "restore", "copy"])
    func replays(target: String) async throws {
        // Given: the inputs that once crashed or hung the target, and its seeds
        var inputs = [Self.fuzz.appendingPathComponent("regressions/\(target)").path]
        inputs.append(["text", "restore", "copy"].contains(target) ? Self.fuzz.appendingPathComponent("seeds/\(target)").path
                      : MediaFixture.folder.path)
        inputs = inputs.filter { FileManager.default.fileExists(atPath: $0) }

        // When: the target runs on each
        var environment = ProcessInfo.processInfo.environment
        environment["CRAVEY_FUZZ_SCRATCH"] = temporaryFolder().appendingPathComponent(target).path
        let result = try await run(Self.driver, [target] + inputs, environment: environment)

        // Then: none crashes or breaks a check, and none takes 5 s
        #expect(result.status == 0, "\(result.error)")
        let times = result.output.split(separator: "\n").compactMap { line -> (String, Double)? in
            let parts = line.split(separator: " ")
            guard parts.count >= 3, let seconds = Double(parts[parts.count - 2]) else { return nil }
            return (String(parts[1].dropLast()), seconds)
        }
        #expect(times.count >= (["restore", "copy"].contains(target) ? 1 : 7), "\(result.output)")
        for (input, seconds) in times {
            #expect(seconds < 5, "\(input) took \(seconds) s")
        }
    }
}
