import ArgumentParser
import CraveyCore
import Foundation

/// cravey's settings: the choices a person would otherwise type on every command, read from
/// `$XDG_CONFIG_HOME/cravey/settings.toml` (`~/.config/cravey/settings.toml`). A flag given on a
/// command wins over its setting, and a setting over the default.
///
/// The file is `key = value` lines with `#` comments: the part of TOML these settings need
/// (strings in double quotes, `true`/`false`, numbers), so that TOML readers and editors read it
/// too. cravey parses it itself, line by line, so that `cravey settings set` changes only the line
/// of its key and keeps a person's comments, blank lines and order, and so that every mistake is
/// named by its line. A file with a mistake is reported on stderr and ignored as a whole (the
/// defaults hold, which are the discreet choices), and never rewritten: `set` and `unset` refuse
/// to touch it until it is fixed by hand.
public struct Settings: Sendable {
    /// A setting: its name in the file, what it does, and the values it takes.
    public enum Key: String, CaseIterable, Sendable {
        case showTitles = "desktop.show-titles"
        case purpose = "clip.purpose"
        case loudness = "play.loudness"
        case listSort = "list.sort"
        case encryptBackups = "backup.encrypt"
        case homeScreen = "home.open"
        case networkServers = "network.allow-servers"
        case transcribeAuto = "transcribe.auto"
        case transcribeLanguage = "transcribe.language"

        /// What it does, for `cravey settings` and its help.
        public var summary: String {
            switch self {
            case .showTitles:
                "Show clips' titles to the desktop while they play (media controls, lock screen, notification, the video's window); false shows \"cravey\" and \"Playing your clip\" instead, never a clip's title, notes, purpose or picture. The player's line on your own terminal always shows the title."
            case .purpose:
                "The purpose of a new clip (record, import) when --purpose is not given."
            case .loudness:
                "The loudness every clip plays at, in LUFS (play, quickplay; --no-normalize plays a clip at its own level)."
            case .listSort:
                "The order of `cravey list` when --sort is not given."
            case .encryptBackups:
                "Encrypt every backup (as --encrypt does) unless --no-encrypt is given."
            case .homeScreen:
                "Whether `cravey` alone on a terminal opens the home screen (false: it prints its help, as it does off a terminal; `cravey home` opens it either way)."
            case .networkServers:
                "Whether a sound server or display named over the network (PULSE_SERVER=tcp:..., DISPLAY=host:N as ssh -X sets) may be used; false refuses them (exit 69), so that cravey opens no network connection."
            case .transcribeAuto:
                "Whether a new clip (record, import, the home screen's r and R) is transcribed once it is saved, when the optional transcriber is installed (`cravey transcribe` otherwise)."
            case .transcribeLanguage:
                "The language the transcriber hears clips in: auto lets it tell from the first 30 seconds; a code makes it hear that language."
            }
        }

        /// The values it takes, in words.
        public var valid: String {
            switch self {
            case .showTitles, .encryptBackups, .homeScreen, .networkServers, .transcribeAuto: "true or false"
            case .transcribeLanguage: "auto, or the code of a language Whisper knows (en, de, fr, es, it, nl, pl, pt, ja, zh and 89 more)"
            case .purpose: RecordingPurpose.allCases.map(\.rawValue).joined(separator: ", ")
            case .loudness: "a number from \(Int(Settings.loudnessRange.lowerBound)) to \(Int(Settings.loudnessRange.upperBound))"
            case .listSort: RecordingSort.allCases.map(\.rawValue).joined(separator: ", ")
            }
        }

        /// Its default, as the file would say it.
        public var defaultValue: Value {
            switch self {
            case .showTitles, .encryptBackups, .networkServers: .bool(false)
            case .homeScreen, .transcribeAuto: .bool(true)
            case .transcribeLanguage: .string("auto")
            case .purpose: .none
            case .loudness: .number(LoudnessMeasurement.playbackTarget)
            case .listSort: .string(RecordingSort.recent.rawValue)
            }
        }

        /// `value` if this setting takes it, else nil.
        func accepts(_ value: Value) -> Value? {
            switch (self, value) {
            case (.showTitles, .bool), (.encryptBackups, .bool), (.homeScreen, .bool), (.networkServers, .bool), (.transcribeAuto, .bool): value
            case (.transcribeLanguage, .string(let code)): code == "auto" || Transcript.languages.contains(code) ? value : nil
            case (.purpose, .string(let name)): RecordingPurpose(rawValue: name) == nil ? nil : value
            case (.listSort, .string(let name)): RecordingSort(rawValue: name) == nil ? nil : value
            case (.loudness, .number(let number)): Settings.loudnessRange.contains(number) ? value : nil
            default: nil
            }
        }

        /// The value a person typed after `cravey settings set KEY`, as this setting takes it; nil
        /// when it takes no such value. Quotes are not needed on the command line.
        func parse(typed text: String) -> Value? {
            let word = text.trimmingCharacters(in: .whitespaces)
            switch self {
            case .showTitles, .encryptBackups, .homeScreen, .networkServers, .transcribeAuto:
                return word == "true" ? .bool(true) : word == "false" ? .bool(false) : nil
            case .loudness: return Double(word).flatMap { $0.isFinite ? accepts(.number($0)) : nil }
            case .purpose, .listSort, .transcribeLanguage: return accepts(.string(word.lowercased()))
            }
        }
    }

    /// A setting's value as the file holds it.
    public enum Value: Sendable, Equatable, CustomStringConvertible {
        case bool(Bool)
        case string(String)
        case number(Double)
        /// No value (a purpose not set).
        case none

        /// As TOML writes it: `true`, `"craving"`, `-16`.
        public var description: String {
            switch self {
            case .bool(let value): String(value)
            case .string(let text): "\"\(text)\""
            case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
            case .none: "none"
            }
        }
    }

    /// Where a setting's value comes from.
    public enum Source: Sendable, Equatable {
        case defaultValue
        /// The settings file, at this line (from 1).
        case file(line: Int)
    }

    /// The loudness targets a person may choose, in LUFS: from quiet (-30) to loud (-10).
    static let loudnessRange = -30.0 ... -10.0

    /// The settings file's path.
    public let url: URL
    /// The values the file sets, with their lines; empty when the file is missing or damaged.
    public private(set) var values: [Key: (value: Value, line: Int)] = [:]
    /// What is wrong with the file, each with its line: it is ignored then.
    public private(set) var problems: [(line: Int, message: String)] = []
    /// Why the file is not read at all (``SettingsFile/read(_:)``: a link, too large, one that
    /// others can change): it is ignored, and no command runs until it is fixed (exit 77).
    public private(set) var refusal: CraveyError?

    /// The settings of this process, read once; a damaged file is reported on stderr then. Inside
    /// `Settings.$reading.withValue(...)`, the settings given there.
    public static var current: Settings { reading ?? loaded }

    private static let loaded: Settings = {
        let settings = Settings(at: location())
        settings.reportProblems()
        return settings
    }()

    /// The settings a command run in process reads, and whose file `settings set` and `unset`
    /// change: the command layer's tests run a command on a file of their own, as the executables
    /// run it on ``location(environment:)``'s. Nil (the file of this process) otherwise.
    @TaskLocal package static var reading: Settings?

    /// Throws why the settings file is not read (``refusal``, exit 77) before `command` runs: each
    /// executable calls it once it has parsed its command line. Help (`--help`, `help`, which
    /// ArgumentParser parses as its own `help` command) still answers, and says what to do.
    public static func refuseUnreadFile(before command: any ParsableCommand) throws {
        if let refusal = current.refusal, type(of: command).configuration.commandName != "help" { throw refusal }
    }

    /// `$XDG_CONFIG_HOME/cravey/settings.toml`, else `~/.config/cravey/settings.toml`.
    public static func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("cravey/settings.toml")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/cravey/settings.toml")
    }

    /// Reads the settings at `url`: none when there is no file; none, and ``refusal`` saying why,
    /// when it is not read; none, and ``problems`` saying why, when it has a mistake.
    public init(at url: URL) {
        self.url = url
        let text: String
        do {
            guard let read = try SettingsFile.read(url) else { return }
            text = read
        } catch let error as CraveyError where error.kind == .unsafeConfiguration {
            refusal = error
            return
        } catch {
            problems = [(0, (error as? CraveyError)?.message ?? "\(error)")]
            return
        }
        let parsed = SettingsFile.parse(text)
        problems = parsed.problems
        if problems.isEmpty { values = parsed.values }
    }

    /// Says on stderr what is wrong with the file, and that it is ignored.
    func reportProblems() {
        guard !problems.isEmpty else { return }
        for problem in problems {
            Terminal.diagnostic(Format.visible("cravey: warning: \(url.path)\(problem.line > 0 ? " line \(problem.line)" : ""): \(problem.message)"))
        }
        Terminal.diagnostic("cravey: warning: the settings file is ignored (every setting at its default) until it is fixed; `cravey settings --help` says what it may hold.")
    }

    /// The value of `key` and where it comes from.
    public func value(of key: Key) -> (value: Value, source: Source) {
        if let set = values[key] { return (set.value, .file(line: set.line)) }
        return (key.defaultValue, .defaultValue)
    }

    /// Whether the desktop is shown clips' titles (else "cravey" and "Playing your clip").
    public var showsTitles: Bool { if case .bool(let on) = value(of: .showTitles).value { on } else { false } }

    /// The purpose a new clip gets without `--purpose`.
    public var purpose: RecordingPurpose? { if case .string(let name) = value(of: .purpose).value { RecordingPurpose(rawValue: name) } else { nil } }

    /// The loudness clips play at, in LUFS.
    public var loudness: Double { if case .number(let target) = value(of: .loudness).value { target } else { LoudnessMeasurement.playbackTarget } }

    /// The order `list` shows without `--sort`.
    public var listSort: RecordingSort { if case .string(let name) = value(of: .listSort).value { RecordingSort(rawValue: name) ?? .recent } else { .recent } }

    /// Whether a backup is encrypted without `--encrypt`.
    public var encryptsBackups: Bool { if case .bool(let on) = value(of: .encryptBackups).value { on } else { false } }

    /// Whether `cravey` alone on a terminal opens the home screen.
    public var opensHomeScreen: Bool { if case .bool(let on) = value(of: .homeScreen).value { on } else { true } }

    /// Whether a new clip is transcribed once saved (when the transcriber is installed).
    public var transcribesNewClips: Bool { if case .bool(let on) = value(of: .transcribeAuto).value { on } else { true } }

    /// The language the transcriber is told to hear; nil lets it tell (`auto`).
    public var transcriptionLanguage: String? {
        if case .string(let code) = value(of: .transcribeLanguage).value, code != "auto" { code } else { nil }
    }

    /// Whether a sound server or display over the network may be used.
    public var allowsNetworkServers: Bool { if case .bool(let on) = value(of: .networkServers).value { on } else { false } }
}
