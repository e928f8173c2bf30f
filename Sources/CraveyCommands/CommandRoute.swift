import Foundation

/// Which executable runs a command line, decided from the raw arguments before anything is
/// parsed, as the `swift` driver picks `swift-<tool>`.
///
/// `cravey` links CraveyCore only (SQLite through GRDB) and starts fast; loading FFmpeg's and
/// PulseAudio's shared libraries has a cost (docs/architecture.md, "Only what a command needs is loaded") the library commands
/// should not pay. So `cravey`'s `main` looks the verb up among ``MediaCommand``'s and, for a media verb,
/// replaces itself with `cravey-media` (installed beside it) and the same arguments, before any
/// parsing: nothing is parsed twice. The media verbs and when each is handed over are
/// ``MediaCommand``'s; verbs not there (library commands, `help`, `--help`, `--version`, typos)
/// stay in `cravey`, whose root lists every command.
///
/// Cameras need libavdevice (and the test camera libavfilter), which the audio recorder must not
/// load: neither executable links them. The video recorder loads them with `dlopen` when a camera
/// is opened (`CaptureDevices`), as `FilterGraph` loads libavfilter only when a thumbnail must be
/// turned; so `record --video` is a `cravey-media` verb and no third executable is needed.
package struct CommandRoute: Equatable, Sendable {
    /// The executables a command line can go to.
    package enum Executable: String, Sendable {
        case cravey
        case craveyMedia = "cravey-media"
    }

    /// Where `cravey-media` is: beside this executable, symbolic links to it resolved through
    /// `/proc/self/exe`.
    package static var mediaExecutable: String { installed(.craveyMedia) }

    /// Where `executable` is: beside this executable (this one, for its own name), symbolic
    /// links to it resolved through `/proc/self/exe`.
    package static func installed(_ executable: Executable) -> String {
        // Without /proc (a chroot), the path this process was started by, links resolved.
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return running.deletingLastPathComponent().appendingPathComponent(executable.rawValue).path
    }

    /// Thrown by a command `cravey` runs that finds it needs `cravey-media` after all (only those
    /// whose ``MediaCommand/handOff`` says so: `waveform` of a clip whose waveform is not stored
    /// yet, which only decoding makes; a `record --toggle` that starts): `cravey`'s `main` then
    /// hands the same command line over, as it does a media verb. Nothing was written.
    package struct HandOff: Error {
        package init() {}
    }

    /// The executable that runs the command.
    package let executable: Executable
    /// The arguments after the executable's name, with a global `--library PATH` (or
    /// `--library=PATH`) given before the verb moved after it, where each command's own
    /// `--library` option reads it.
    package let arguments: [String]

    /// The route of a command line; `cravey` alone (or with only `--library`) opens the home
    /// screen when `opensHome` says so (a terminal that can show it), else prints the help.
    package init(_ arguments: some Collection<String>, opensHome: Bool = false) {
        var leading: [String] = []
        var rest = ArraySlice(arguments)
        while let first = rest.first {
            if first == "--library", rest.count >= 2 {
                leading += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else if first.hasPrefix("--library=") {
                leading.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        guard let verb = rest.first else {
            if opensHome {
                (executable, self.arguments) = (.craveyMedia, [HomeOptions.configuration.commandName!] + leading)
            } else {
                (executable, self.arguments) = (.cravey, Array(arguments))
            }
            return
        }
        var operands = rest.dropFirst()
        // A command of subcommands (`remind add`) takes `--library` after its subcommand's name.
        if let first = operands.first, Self.subcommands(of: verb).contains(first) {
            leading.insert(first, at: 0)
            operands = operands.dropFirst()
        }
        self.arguments = [verb] + leading + operands
        switch MediaCommand(verb: verb)?.handOff {
        case nil, .whenNeeded: executable = .cravey
        case .always: executable = .craveyMedia
        case .withOperand: executable = Self.hasOperand(operands) ? .craveyMedia : .cravey
        case .unlessToggle: executable = operands.contains("--toggle") ? .cravey : .craveyMedia
        case .withOption(let option):
            executable = Self.hasOption(option, operands) ? .craveyMedia : .cravey
        }
    }

    /// Whether the command `cravey` runs may hand itself over by throwing ``HandOff`` (its
    /// ``MediaCommand/handOff`` says so); from any other, one is a mistake of cravey's own.
    package var mayHandOff: Bool {
        guard executable == .cravey, let verb = arguments.first, let media = MediaCommand(verb: verb) else { return false }
        return [.whenNeeded, .unlessToggle].contains(media.handOff)
    }

    /// The names of `verb`'s subcommands, when `cravey`'s command of that name has some.
    static func subcommands(of verb: String) -> [String] {
        let command = Cravey.configuration.subcommands.first { $0._commandName == verb }
        return command?.configuration.subcommands.map { $0._commandName } ?? []
    }

    /// Whether `arguments` hold `option` (or `option=value`) before any `--`.
    static func hasOption(_ option: String, _ arguments: ArraySlice<String>) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == option || $0.hasPrefix(option + "=") }
    }

    /// Whether `arguments` hold an operand: a word that is neither an option nor the value of
    /// `--library`, or anything after `--`.
    static func hasOperand(_ arguments: ArraySlice<String>) -> Bool {
        var rest = arguments
        while let first = rest.popFirst() {
            if first == "--" { return !rest.isEmpty }
            if first == "--library" { _ = rest.popFirst(); continue }
            if !first.hasPrefix("-") { return true }
        }
        return false
    }
}
