import ArgumentParser
import CraveyCore
import Foundation

/// Runs the commands that need FFmpeg or PulseAudio.
///
/// `cravey` itself links neither: loading their ~200 shared libraries costs a process about
/// 80 ms, which commands that only read the library should not pay. It hands media commands to
/// `cravey-media`, installed beside it, which parses the same command line and runs them.
public protocol MediaCommandRunner: Sendable {
    func record(_ command: Record) async throws
    func devices(_ command: Devices) async throws
    func doctor(_ command: Doctor) async throws
    func importMedia(_ command: Import) async throws
}

public enum MediaCommands {
    /// Set once by the executable's entry point, before any command is parsed.
    nonisolated(unsafe) public static var runner: any MediaCommandRunner = HandOff()

    /// Replaces this process with `cravey-media` and the same arguments.
    struct HandOff: MediaCommandRunner {
        func record(_ command: Record) async throws { try handOff() }
        func devices(_ command: Devices) async throws { try handOff() }
        func doctor(_ command: Doctor) async throws { try handOff() }
        func importMedia(_ command: Import) async throws { try handOff() }

        private func handOff() throws {
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            let media = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                .map { URL(fileURLWithPath: $0) } ?? executable
            let path = media.deletingLastPathComponent().appendingPathComponent("cravey-media").path
            let arguments = [path] + Cravey.arguments
            let argv = arguments.map { strdup($0) } + [nil]
            execv(path, argv)
            Terminal.diagnostic("cravey: cannot run \(path): \(String(cString: strerror(errno))). Media commands need cravey-media installed beside cravey.")
            throw ExitCode.failure
        }
    }
}
