import Foundation

/// Which executable runs a command line, decided from the raw arguments before anything is
/// parsed, as the `swift` driver picks `swift-<tool>`.
///
/// `cravey` links CraveyCore only (SQLite through GRDB) and starts fast; loading FFmpeg's and
/// PulseAudio's shared libraries has a cost (docs/architecture.md, "Only what a command needs is loaded") the library commands
/// should not pay. So `cravey`'s `main` looks the verb up in ``verbs`` and, for a media verb,
/// replaces itself with `cravey-media` (installed beside it) and the same arguments, before any
/// parsing: nothing is parsed twice, and a new media command is one entry here plus its file
/// in `cravey-media`.
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

    /// Where a verb goes.
    enum Destination {
        case cravey
        case media
        /// `cravey-media` when an operand follows the verb (`quickplay 2` plays the second
        /// clip, which needs PulseAudio), else `cravey` (`quickplay --json` only lists).
        case mediaWithOperand
        /// `cravey` with `--toggle` (`record --toggle`: a stop, the one a desktop key waits for,
        /// needs no FFmpeg; a start is handed over), else `cravey-media`.
        case mediaUnlessToggle
    }

    /// Every verb that is not `cravey`'s own. Verbs not listed (library commands, `help`,
    /// `--help`, `--version`, typos) stay in `cravey`, whose root lists every command.
    static let verbs: [String: Destination] = [
        "record": .mediaUnlessToggle, "play": .media, "devices": .media, "doctor": .media, "import": .media,
        "thumbnail": .media, "quickplay": .mediaWithOperand, "trim": .media, "clean": .media, "share": .media,
        "restore": .media, "transcribe": .media, "transcript": .media, HomeOptions.configuration.commandName!: .media,
    ]

    /// Where `cravey-media` is: beside this executable, symbolic links to it resolved through
    /// `/proc/self/exe`.
    package static var mediaExecutable: String {
        // Without /proc (a chroot), the path this process was started by, links resolved.
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent(Executable.craveyMedia.rawValue).path
    }

    /// Thrown by a command `cravey` runs that finds it needs `cravey-media` after all (`waveform`
    /// of a clip whose waveform is not stored yet, which only decoding makes): `cravey`'s `main`
    /// then hands the same command line over, as it does a media verb. Nothing was written.
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
        let operands = rest.dropFirst()
        self.arguments = [verb] + leading + operands
        switch Self.verbs[verb] ?? .cravey {
        case .cravey: executable = .cravey
        case .media: executable = .craveyMedia
        case .mediaWithOperand: executable = Self.hasOperand(operands) ? .craveyMedia : .cravey
        case .mediaUnlessToggle: executable = operands.contains("--toggle") ? .cravey : .craveyMedia
        }
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
