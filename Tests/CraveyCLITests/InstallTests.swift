import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `scripts/install --prefix` into a temporary folder, checked with the tools a person's system
/// uses: the programs on PATH, `man -l`, bash's and fish's completion, `desktop-file-validate`;
/// then `--uninstall`, which must leave the prefix as it was.
@Suite("scripts/install", .temporaryFiles)
struct InstallTests {
    @Test("install puts programs, pages, completions (ids, purposes, devices, help) and launchers where their tools look; uninstall leaves the prefix as it was and removes the reminders' systemd units this cravey wrote, no other file")
    func installsAndUninstalls() async throws {
        // Given a prefix that already holds a program and an empty manual folder, and a library with one clip
        let prefix = temporaryFolder().appendingPathComponent("prefix")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("share/man/man1"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: prefix.appendingPathComponent("bin/other").path, contents: Data("x".utf8))
        let before = try listing(prefix)
        let library = temporaryLibrary().path
        let imported = try await Cravey.run(["import", "--library", library, "--title", "Stay: strong", try await Fixture.audio().path])
        let id = String(imported.output.prefix(8))
        let sink = try await VirtualMicrophone()

        // When the debug build is installed there
        let script = TestSoundServer.packageRoot.appendingPathComponent("scripts/install").path
        let built = URL(fileURLWithPath: Cravey.executable).deletingLastPathComponent().path
        let install = try await run(script, ["--prefix", prefix.path, "--from", built])
        #expect(install.status == 0, "\(install.error)")
        let bin = prefix.appendingPathComponent("bin").path
        let environment = Cravey.environment(["PATH": "\(bin):/usr/bin:/bin"])

        // Then the programs run from that PATH (a media command too: cravey-media is beside cravey)
        #expect(try await run("/bin/sh", ["-c", "cravey list --library '\(library)' && cravey devices"], environment: environment).status == 0)
        // And man renders both pages
        for page in ["cravey", "cravey-media"] {
            let shown = try await run("man", ["-l", prefix.appendingPathComponent("share/man/man1/\(page).1").path],
                                             environment: environment.merging(["MANPAGER": "cat", "MANWIDTH": "100"]) { $1 })
            #expect(shown.status == 0 && shown.output.contains(page.uppercased()) && shown.output.contains("record"), "\(page): \(shown.error)")
        }
        // And bash completes ids, purposes, sinks and commands after help
        let bash = prefix.appendingPathComponent("share/bash-completion/completions/cravey").path
        func complete(_ line: String) async throws -> [String] {
            let driver = """
                source '\(bash)'
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"
                [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
                "$(complete -p cravey | sed 's/.*-F \\([^ ]*\\) .*/\\1/')" cravey "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            return try await run("bash", ["-c", driver, "bash", line], environment: environment).output.split(separator: "\n").map(String.init)
        }
        #expect(try await complete("cravey play --library \(library) ") == [id])
        #expect(try await complete("cravey edit --purpose ") == ["motivational", "craving", "reflection", "milestone"])
        #expect(try await complete("cravey play x --device ").contains(sink.sinkName))
        #expect(try await complete("cravey help ").contains("record"))
        #expect(try await complete("cravey help qu") == ["quickplay"])
        // And fish (interactive, on a terminal: its scripts ask the command line) completes commands after help
        let fish = try await run("script", ["-qc", "fish -i --no-config -c \"source \(prefix.path)/share/fish/vendor_completions.d/cravey.fish; complete -C 'cravey help qu'\"", "/dev/null"],
                                        environment: environment)
        #expect(fish.output.contains("quickplay\tList Quick Play"), "\(fish.output) \(fish.error)")
        // And zsh loads its script
        let zsh = try await run("zsh", ["-c", "autoload -U compinit && compinit -u -D && source \(prefix.path)/share/zsh/site-functions/_cravey"],
                                       environment: environment)
        #expect(zsh.status == 0, "\(zsh.error)")
        // And the launchers are valid and start the installed cravey
        for entry in ["cravey", "cravey-quickplay", "cravey-record"] {
            let path = prefix.appendingPathComponent("share/applications/\(entry).desktop").path
            #expect(try await run("desktop-file-validate", [path]).status == 0)
            #expect(try String(contentsOfFile: path, encoding: .utf8).contains("Exec=\(bin)/cravey "))
        }
        #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/icons/hicolor/scalable/apps/cravey.svg").path))

        // And the installed cravey writes a reminder's systemd units in the user's folder, beside
        // a person's file of a reminder's name and the units of another cravey (a build's own)
        let configuration = temporaryFolder().appendingPathComponent("config")
        let units = configuration.appendingPathComponent("systemd/user")
        let reminded = try await run("cravey", ["remind", "add", "18:30", "--library", library],
                                     environment: environment.merging(["XDG_CONFIG_HOME": configuration.path]) { $1 })
        #expect(reminded.status == 0, "\(reminded.error)")
        let ours = try FileManager.default.contentsOfDirectory(atPath: units.path).sorted()
        #expect(ours.count == 2 && ours.allSatisfy { $0.hasPrefix("cravey-remind-") }, "\(ours)")
        try Data("[Timer]\nOnCalendar=daily\n".utf8).write(to: units.appendingPathComponent("cravey-remind-0000000a-1.timer"))
        let another = try String(contentsOf: units.appendingPathComponent(try #require(ours.first { $0.hasSuffix(".service") })), encoding: .utf8)
            .replacingOccurrences(of: "ExecStart=\(bin)/cravey ", with: "ExecStart=/opt/another/cravey ")
        try Data(another.utf8).write(to: units.appendingPathComponent("cravey-remind-0000000b-1.service"))

        // When it is uninstalled, then the prefix is as it was, and of the units only this cravey's are gone
        let uninstall = try await run(script, ["--prefix", prefix.path, "--uninstall"],
                                      environment: ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": configuration.path]) { $1 })
        #expect(uninstall.status == 0 && uninstall.error.contains("removed the systemd units of 1 reminder(s)"), "\(uninstall.error)")
        #expect(try listing(prefix) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: units.path).sorted() == ["cravey-remind-0000000a-1.timer", "cravey-remind-0000000b-1.service"])
    }

    /// Every path beneath `folder`, sorted.
    func listing(_ folder: URL) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
    }
}
