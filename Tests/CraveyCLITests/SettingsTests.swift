import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `home.open`, which only `cravey` alone reads before anything is parsed: not on a terminal it
/// prints its help whatever the setting says (on one: HomeScreenTests). The settings commands,
/// and the settings' effect on the commands, are checked in process: CraveyCommandsTests'
/// SettingsCommandTests.
@Suite("Settings", .temporaryFiles)
struct SettingsTests {
    @Test("`cravey` alone not on a terminal prints its help with home.open = true")
    func homeOpenNeedsATerminal() async throws {
        let settingsFile = try Cravey.settings("home.open = true\n")
        let alone = try await Cravey.run([], environment: settingsFile)
        #expect(alone.status == 0 && alone.output.contains("USAGE"), "\(alone.output)")
    }
}

/// A settings file is believed only in a state only its owner could have made: read bounded
/// (never more than its limit), never through a link, and not when others can change it or its
/// folder (it can turn `network.allow-servers` on). Such a file stops every command (77) with
/// a message naming it and the fix (what a file holds is shown escaped and cut: in process,
/// SettingsCommandTests).
@Suite("Settings file state", .temporaryFiles)
struct SettingsFileStateTests {
    /// A settings folder of the test's own holding `text` (file mode 0600, folder 0700), and the file.
    func config(_ text: String, folderName: String = "config") throws -> (environment: [String: String], file: URL) {
        let home = temporaryFolder().appendingPathComponent("\(folderName)-\(UUID().uuidString.prefix(8))")
        let folder = home.appendingPathComponent("cravey")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = folder.appendingPathComponent("settings.toml")
        try Data(text.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return (["XDG_CONFIG_HOME": home.path], file)
    }

    /// What the file at `url` is, without reading it (a pipe would hold a read): its link, type, size and time.
    func fingerprint(_ url: URL) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
        return [link, attributes?[.type], attributes?[.size], attributes?[.modificationDate]].map { "\($0.map { "\($0)" } ?? "-")" }.joined(separator: " ")
    }

    @Test("a settings file that is a link, not a regular file, larger than 64 KiB (a sparse 2 GB one: at once, in little memory), or that others can change (the file 0666 or 0620, its folder 0777 or 0770) stops every command (77) naming the file and the fix; --help still answers; nothing is written")
    func unsafeFilesRefused() async throws {
        let library = temporaryLibrary().path
        let secret = temporaryFolder().appendingPathComponent("elsewhere.txt")
        try Data("s3cr3t-passphrase-8841\n".utf8).write(to: secret)
        let allowing = "network.allow-servers = true\nlist.sort = \"title\"\n"
        var cases: [(what: String, environment: [String: String], file: URL, expected: [String])] = []

        let large = try config("")
        let handle = try FileHandle(forWritingTo: large.file)
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        cases.append(("a sparse 2 GB file", large.environment, large.file, ["2147483648 bytes", "65536", "mv '"]))

        let linked = try config("")
        try FileManager.default.removeItem(at: linked.file)
        try FileManager.default.createSymbolicLink(at: linked.file, withDestinationURL: secret)
        cases.append(("a link to another file", linked.environment, linked.file, ["symbolic link", "cp --remove-destination"]))

        let pipe = try config("")
        try FileManager.default.removeItem(at: pipe.file)
        try #require(mkfifo(pipe.file.path, 0o600) == 0)
        cases.append(("a named pipe", pipe.environment, pipe.file, ["not a regular file"]))

        for mode in [0o666, 0o620] {
            let open = try config(allowing)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: open.file.path)
            cases.append(("the file mode \(String(mode, radix: 8))", open.environment, open.file,
                          ["changed by other users", "mode \(String(mode, radix: 8))", "chmod 600 '\(open.file.path)'", "network.allow-servers"]))
        }
        for mode in [0o777, 0o770] {
            let open = try config(allowing)
            let folder = open.file.deletingLastPathComponent()
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: folder.path)
            cases.append(("the folder mode \(String(mode, radix: 8))", open.environment, open.file,
                          ["its folder \(folder.path) can be changed by other users", "chmod 700 '\(folder.path)'"]))
        }

        for (what, environment, file, expected) in cases {
            let before = fingerprint(file)
            // When a library command, a media command and the settings commands run
            let timing = temporaryFolder().appendingPathComponent("time-\(UUID().uuidString.prefix(8))")
            let started = Date()
            let list = try await run("/usr/bin/time", ["-f", "%M", "-o", timing.path, Cravey.executable, "list", "--library", library],
                                            environment: Cravey.environment(environment))
            let seconds = Date().timeIntervalSince(started)
            let kilobytes = Int(try String(contentsOf: timing, encoding: .utf8).split(separator: "\n").last ?? "") ?? .max
            let devices = try await Cravey.run(["devices", "--json"], environment: environment)
            let show = try await Cravey.run(["settings"], environment: environment)
            let set = try await Cravey.run(["settings", "set", "play.loudness", "-20"], environment: environment)
            let help = try await Cravey.run(["settings", "--help"], environment: environment)

            // Then each stops (77) before doing anything, naming the file, why and the fix
            for result in [list, devices, show, set] {
                #expect(result.status == 77 && result.error.contains(file.path) && result.error.contains("was not read"),
                        "\(what): \(result.status) \(result.error)")
                for words in expected { #expect(result.error.contains(words), "\(what): no \(words) in \(result.error)") }
                #expect(!result.error.contains("s3cr3t") && !result.output.contains("s3cr3t"), "\(what): \(result.error)")
                #expect(result.error.utf8.count < 1000, "\(what): \(result.error.utf8.count) bytes")
            }
            // At once and in little memory, whatever the file's size (it was 14 s and 2.1 GB)
            #expect(seconds < 10 && kilobytes < 200_000, "\(what): \(seconds) s, \(kilobytes) KB")
            #expect(help.status == 0 && help.output.contains("77"), "\(what): \(help.status) \(help.error)")
            #expect(!FileManager.default.fileExists(atPath: library), "\(what): the library was made")
            #expect(fingerprint(file) == before, "\(what): the file changed")
        }
    }
}
