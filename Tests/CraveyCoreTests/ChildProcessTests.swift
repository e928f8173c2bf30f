import Foundation
import SystemPackage
import Testing
@testable import CraveyCore

/// Programs started with ``ChildProcess``: real processes (sh, cat, env), awaited off the
/// cooperative pool. A pipe is read only once its writer has ended, so no read blocks a task.
@Suite("A child process started with posix_spawn")
struct ChildProcessTests {
    /// Writes `text` to `descriptor` in full.
    func write(_ text: String, to descriptor: FileDescriptor?) throws {
        _ = try #require(descriptor).writeAll(Array(text.utf8))
    }

    @Test("its exit status, and the signal that ended it (sent by it, or by signal(_:)); a signal after its end reaches nobody")
    func endings() async throws {
        #expect(try await ChildProcess("/bin/sh", ["-c", "exit 3"]).exit() == .exit(3))
        #expect(try await ChildProcess("/bin/true").exit() == .exit(0))
        #expect(try await ChildProcess("/bin/sh", ["-c", "kill -TERM $$"]).exit() == .signal(SIGTERM))

        let sleeper = try ChildProcess("/bin/sleep", ["60"])
        sleeper.signal(SIGKILL)
        #expect(await sleeper.exit() == .signal(SIGKILL))
        // Reaped: asked again, the same answer; signalled again, nothing is sent.
        sleeper.signal(SIGKILL)
        #expect(await sleeper.exit() == .signal(SIGKILL))
        #expect(ChildProcess.Termination.signal(9).description == "signal 9" && ChildProcess.Termination.exit(3).description == "exit 3")
    }

    @Test("its stdin, stdout and stderr as pipes: what is written in comes out, the end of the input ends it")
    func pipes() async throws {
        let cat = try ChildProcess("/bin/cat", input: .pipe, output: .pipe, errors: .pipe)
        try write("two lines\nof words\n", to: cat.input)
        cat.closeInput()
        #expect(await cat.exit() == .exit(0))
        #expect(String(decoding: cat.outputToEnd(), as: UTF8.self) == "two lines\nof words\n")

        let complaining = try ChildProcess("/bin/sh", ["-c", "echo out; echo oops >&2; exit 2"], input: .null, output: .pipe, errors: .pipe)
        #expect(await complaining.exit() == .exit(2))
        var buffer = [UInt8](repeating: 0, count: 100)
        let count = try buffer.withUnsafeMutableBytes { try #require(complaining.errors).read(into: $0) }
        #expect(String(decoding: buffer[..<count], as: UTF8.self) == "oops\n")
        #expect(String(decoding: complaining.outputToEnd(), as: UTF8.self) == "out\n")
    }

    @Test("the environment given, and no other; this process's own when none is given; a name looked up on PATH")
    func environment() async throws {
        let given = try ChildProcess("/usr/bin/env", environment: ["CRAVEY_SPAWN": "two words"], output: .pipe)
        #expect(await given.exit() == .exit(0))
        #expect(String(decoding: given.outputToEnd(), as: UTF8.self) == "CRAVEY_SPAWN=two words\n")

        let inherited = try ChildProcess("env", searchingPath: true, output: .pipe)
        #expect(await inherited.exit() == .exit(0))
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(String(decoding: inherited.outputToEnd(), as: UTF8.self).split(separator: "\n").contains { $0 == "PATH=\(path)" })
    }

    @Test("it starts with no signal ignored or blocked, and with no descriptor of this process's but 0, 1 and 2")
    func cleanStart() async throws {
        let status = try ChildProcess("/bin/cat", ["/proc/self/status"], output: .pipe)
        #expect(await status.exit() == .exit(0))
        let lines = String(decoding: status.outputToEnd(), as: UTF8.self).split(separator: "\n")
        func mask(_ name: String) -> UInt64? { lines.first { $0.hasPrefix(name + ":\t") }.flatMap { UInt64($0.dropFirst(name.count + 2), radix: 16) } }
        // (Signals 1 to 31: glibc keeps its own, 32 and 33, ignored in a child.)
        #expect(mask("SigBlk") == 0 && mask("SigIgn").map { $0 & 0x7fff_ffff } == 0, "\(lines.filter { $0.hasPrefix("Sig") })")

        // A descriptor opened without close-on-exec stays here.
        let open = try FileDescriptor.open("/dev/null", .readOnly)
        defer { try? open.close() }
        let listing = try ChildProcess("/bin/ls", ["/proc/self/fd"], output: .pipe)
        #expect(await listing.exit() == .exit(0))
        // 3 is the folder ls reads.
        #expect(String(decoding: listing.outputToEnd(), as: UTF8.self).split(separator: "\n") == ["0", "1", "2", "3"])
    }

    @Test("a program that is not there is an error naming it, with its errno; nothing is left running")
    func missing() throws {
        #expect {
            try ChildProcess("/nowhere/cravey-no-such-program")
        } throws: { error in
            let failed = error as? ChildProcess.StartError
            return failed?.errno == .noSuchFileOrDirectory && failed?.program == "/nowhere/cravey-no-such-program"
                && "\(error)" == "there is no program /nowhere/cravey-no-such-program"
        }
        #expect {
            try ChildProcess("cravey-no-such-program", searchingPath: true)
        } throws: { error in
            (error as? ChildProcess.StartError)?.errno == .noSuchFileOrDirectory
        }
        #expect {
            try ChildProcess("/etc/passwd")
        } throws: { error in
            (error as? ChildProcess.StartError)?.errno == .permissionDenied && "\(error)".hasPrefix("cannot start /etc/passwd: ")
        }
    }
}
