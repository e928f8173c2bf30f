import ArgumentParser
import CraveyCore
import Foundation

/// `cravey settings`: lists the settings, their values and where each comes from; `set` and
/// `unset` change one.
struct SettingsCommand: ParsableCommand {
    /// Each setting, its default and the values it takes, from the settings themselves, so that the
    /// help names every one.
    private static let keys = Settings.Key.allCases.map { key in
        "\(key.rawValue) (default \(key.defaultValue); \(key.valid)): \(key.summary)"
    }.joined(separator: "\n")

    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List the settings, with their values and where each comes from; set or unset one.",
        discussion: """
            Settings are the choices you would otherwise type on every command. They live in \
            $XDG_CONFIG_HOME/cravey/settings.toml (~/.config/cravey/settings.toml), mode 0600, \
            one `key = value` a line with # comments: the part of TOML they need (words in \
            double quotes, true or false, numbers), so a person edits it by hand as easily as \
            with `cravey settings set`, which changes only its key's line and keeps every comment \
            and the order (cravey reads and writes it line by line for that: a TOML library \
            writing the file back would drop the comments). A flag given on a command wins over \
            its setting, and a setting over the default.

            \(keys)

            A file with a mistake (an unknown key, a value a setting does not take, a line that \
            is not `key = value`) is named with its line on stderr by every command that reads \
            it, and ignored as a whole: every setting keeps its default until it is fixed. \
            `set` and `unset` never rewrite it then (exit 64).

            As the file can let cravey use the network (network.allow-servers), it is believed \
            only in a state only you could have made: a file that is a symbolic link or not a \
            regular file, is larger than 64 KiB, belongs to another user, or that other users \
            can change (group- or world-writable), or whose folder they can, is not read at all, \
            and every command stops (exit 77) naming it and the fix (chmod 600 the file, chmod \
            700 its folder, or move it aside) until it is fixed. No more than 64 KiB of it is \
            ever read, and what it holds is shown escaped, each quote cut to a line.
            """,
        subcommands: [Show.self, SetValue.self, Unset.self],
        defaultSubcommand: Show.self)

    /// `cravey settings` (or `settings show`): every setting, its value and where it comes from.
    struct Show: SettingsReading {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "List every setting, its value and where it comes from (the default, or the file's line).")

        @Flag(help: "Print a JSON array: key, value, source (default or file), line, values (the ones it takes).")
        var json = false

        func run(with settings: Settings) throws {
            let rows = Settings.Key.allCases.map { key in (key, settings.value(of: key)) }
            if json {
                return try Terminal.printJSON(rows.map { key, set in
                    Listed(key: key.rawValue, value: set.value.jsonValue, source: set.source == .defaultValue ? "default" : "file",
                           line: { if case .file(let line) = set.source { line } else { nil } }(), values: key.valid)
                })
            }
            try Terminal.output(Format.table(["KEY", "VALUE", "FROM"], rows.map { key, set in
                let from = switch set.source {
                case .defaultValue: "default"
                case .file(let line): "\(Format.visible(settings.url.path)) line \(line)"
                }
                return [key.rawValue, set.value.description, from]
            }))
        }
    }

    /// One setting as `settings --json` prints it.
    struct Listed: Encodable {
        var key: String
        var value: JSONValue
        var source: String
        var line: Int?
        var values: String
    }

    /// `cravey settings set KEY VALUE`.
    struct SetValue: SettingsReading {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set a setting in the settings file (written in one step, mode 0600).",
            discussion: "An unknown key, or a value the setting does not take, is refused (exit 64) naming the valid ones; nothing is written then.")

        @Argument(help: ArgumentHelp("The setting, such as desktop.show-titles.", valueName: "key"),
                  completion: .list(Settings.Key.allCases.map(\.rawValue)))
        var key: String
        // Every word after the key, so that a number such as -18 is a value, not an option.
        @Argument(parsing: .allUnrecognized,
                  help: ArgumentHelp("Its value: true or false, a word (craving, most-played) or a number (-18).", valueName: "value"))
        var values: [String] = []

        func validate() throws {
            guard values.count == 1 else { throw ValidationError("Give one value after the key (such as `cravey settings set play.loudness -18`).") }
        }

        func run(with settings: Settings) throws {
            let key = try SettingsCommand.key(named: key)
            let value = values[0]
            guard let typed = key.parse(typed: value) else {
                throw CraveyError(.invalidInput, "\(key.rawValue) takes \(key.valid), not \(CraveyError.quoted(value)). Nothing was changed.")
            }
            let url = try SettingsCommand.change(key, to: typed, in: settings.url)
            Terminal.diagnostic("Set \(key.rawValue) = \(typed) in \(url.path).")
        }
    }

    /// `cravey settings unset KEY`.
    struct Unset: SettingsReading {
        static let configuration = CommandConfiguration(
            abstract: "Remove a setting from the settings file: it goes back to its default.")

        @Argument(help: ArgumentHelp("The setting, such as desktop.show-titles.", valueName: "key"),
                  completion: .list(Settings.Key.allCases.map(\.rawValue)))
        var key: String

        func run(with settings: Settings) throws {
            let key = try SettingsCommand.key(named: key)
            _ = try SettingsCommand.change(key, to: nil, in: settings.url)
            Terminal.diagnostic("\(key.rawValue) is back to its default (\(key.defaultValue)).")
        }
    }

    /// The setting named `name`; refuses (exit 64) an unknown one, naming the settings.
    static func key(named name: String) throws -> Settings.Key {
        guard let key = Settings.Key(rawValue: name) else {
            throw CraveyError(.invalidInput, "\(CraveyError.quoted(name)) is not a setting. The settings are: \(Settings.Key.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return key
    }

    /// Sets (or, with nil, removes) `key` in the settings file at `url`, refusing to touch a file
    /// with a mistake; returns the file's place.
    static func change(_ key: Settings.Key, to value: Settings.Value?, in url: URL) throws -> URL {
        // Read again: the file may have changed since the main read it.
        let settings = Settings(at: url)
        if let refusal = settings.refusal { throw refusal }
        if let problem = settings.problems.first {
            throw CraveyError(.invalidInput, "The settings file \(settings.url.path) has a mistake\(problem.line > 0 ? " at line \(problem.line)" : ""): \(problem.message). Fix it by hand (or move it aside); it was not changed.")
        }
        // A new file starts with a few lines saying what it is; unsetting in none writes none.
        let text = try SettingsFile.read(settings.url) ?? SettingsFile.preamble
        let changed = SettingsFile.changing(text, key, to: value)
        if changed != text { try SettingsFile.write(changed, to: settings.url) }
        return settings.url
    }
}

/// A setting's value in JSON: a boolean, a string, a number or null.
enum JSONValue: Encodable {
    case bool(Bool), string(String), number(Double), null

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

extension Settings.Value {
    var jsonValue: JSONValue {
        switch self {
        case .bool(let value): .bool(value)
        case .string(let value): .string(value)
        case .number(let value): .number(value)
        case .none: .null
        }
    }
}
