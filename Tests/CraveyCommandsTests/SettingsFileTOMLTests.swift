import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// The settings file is TOML, and cravey reads its own subset of it by hand (``SettingsFile``):
/// one `key = value` a line, true or false, a quoted word, a number. Python's `tomllib` (3.11 and
/// later) is the witness: on each input of the table both read the same values, or both refuse,
/// or the input is TOML outside the subset (a table, an escape, an unknown key, a value out of
/// range), which tomllib takes and cravey refuses by design.
@Suite("The settings parser against tomllib")
struct SettingsFileTOMLTests {
    /// What is expected of an input.
    enum Expected: Sendable {
        /// Both read it, to the same values.
        case same
        /// Neither reads it.
        case bothRefuse
        /// TOML that cravey does not take on purpose: tomllib reads it, cravey refuses it.
        case outsideTheSubset
    }

    static let inputs: [(String, Expected)] = [
        // Read the same
        ("", .same),
        ("# only a comment\n\n", .same),
        ("desktop.show-titles = true\n", .same),
        ("desktop.show-titles=false", .same),
        ("\tdesktop.show-titles = true   # kept\n", .same),
        ("list.sort = \"title\"", .same),
        ("list.sort = 'most-played'", .same),
        ("list.sort = \"title\"# no space before it", .same),
        ("list.sort = \"title\" # a # b", .same),
        ("list.sort = \"title\"   ", .same),
        ("clip.purpose = \"craving\"\ntranscribe.language = \"en\"\nnetwork.allow-servers = false\n", .same),
        ("play.loudness = -16", .same),
        ("play.loudness = -14.50", .same),
        ("play.loudness = -10", .same),
        ("backup.encrypt = true\ntranscribe.auto = false\nplay.loudness = -23.5\nlist.sort = \"recent\"\n", .same),
        // Refused by both
        ("desktop.show-titles = True", .bothRefuse),
        ("desktop.show-titles = yes", .bothRefuse),
        ("desktop.show-titles =", .bothRefuse),
        ("desktop.show-titles", .bothRefuse),
        ("desktop.show-titles = true false", .bothRefuse),
        ("desktop.show-titles = true\rhome.open = true", .bothRefuse),
        ("home.open = true\nhome.open = false", .bothRefuse),
        ("desktop.show-titles = true\ndesktop = 1", .bothRefuse),
        ("list.sort = \"title", .bothRefuse),
        ("list.sort = \"title'", .bothRefuse),
        ("list.sort = \"title\" \"recent\"", .bothRefuse),
        ("list.sort = title", .bothRefuse),
        ("list.sort = \"ti\u{07}tle\"", .bothRefuse),
        ("play.loudness = -16.", .bothRefuse),
        ("play.loudness = -.5", .bothRefuse),
        ("play.loudness = --16", .bothRefuse),
        ("play.loudness = +-16", .bothRefuse),
        ("play.loudness = - 16", .bothRefuse),
        ("play.loudness = -16 -2", .bothRefuse),
        ("play.loudness = -0x10", .bothRefuse),
        // TOML that cravey refuses, saying what it takes instead
        ("[desktop]\nshow-titles = true", .outsideTheSubset),
        ("\"desktop.show-titles\" = true", .outsideTheSubset),
        ("desktop . show-titles = true", .outsideTheSubset),
        ("list.sort = \"\\u0074itle\"", .outsideTheSubset),
        ("list.sort = \"\"\"title\"\"\"", .outsideTheSubset),
        ("play.loudness = -1_6", .outsideTheSubset),
        ("play.loudness = -1e1", .outsideTheSubset),
        ("play.loudness = -16.5e0", .outsideTheSubset),
        ("play.loudness = -inf", .outsideTheSubset),
        ("play.loudness = 0", .outsideTheSubset),
        ("volume = 5", .outsideTheSubset),
        ("clip.purpose = \"boredom\"", .outsideTheSubset),
        // Refused by both since this table found cravey taking them: a leading zero, a control
        // character in a comment (a tab is no control character here).
        ("play.loudness = -016", .bothRefuse),
        ("play.loudness = 016.5", .bothRefuse),
        ("play.loudness = -0.5", .outsideTheSubset),
        ("desktop.show-titles = true # a bell \u{07}", .bothRefuse),
        ("# a bell \u{07} in a line of its own\n", .bothRefuse),
        ("desktop.show-titles = true # a\ttab", .same),
        // Lines ended by CR LF, as an editor on Windows writes them (Swift reads "\r\n" as one
        // Character: split at "\n" alone, such a file was one line, and refused).
        ("desktop.show-titles = true\r\nhome.open = false\r\n", .same),
        ("desktop.show-titles = true\r\n", .same),
    ]

    /// A value as both sides give it.
    enum Plain: Equatable, CustomStringConvertible {
        case bool(Bool), string(String), number(Double)
        /// What tomllib reads and cravey has no kind for (an array, a date, infinity), as Python writes it.
        case other(String)

        var description: String {
            switch self {
            case .bool(let value): "\(value)"
            case .string(let text): text.debugDescription
            case .number(let number): "\(number)"
            case .other(let text): text
            }
        }
    }

    /// What one side made of an input: its values by key path (parts joined by U+001F), or nil
    /// for a refusal.
    typealias Reading = [String: Plain]?

    /// cravey's reading: `SettingsFile.parse`, refused when it names any problem.
    static func cravey(_ text: String) -> Reading {
        let parsed = SettingsFile.parse(text)
        guard parsed.problems.isEmpty else { return nil }
        var values: [String: Plain] = [:]
        for (key, setting) in parsed.values {
            let path = key.rawValue.split(separator: ".").joined(separator: "\u{1F}")
            switch setting.value {
            case .bool(let value): values[path] = .bool(value)
            case .string(let text): values[path] = .string(text)
            case .number(let number): values[path] = .number(number)
            case .none: return nil
            }
        }
        return values
    }

    /// tomllib's readings of every input, in one run of Python.
    static func tomllib(_ texts: [String]) async throws -> [Reading] {
        let script = """
            import json, math, sys, tomllib
            def flat(table, path=()):
                for key, value in table.items():
                    if isinstance(value, dict):
                        yield from flat(value, path + (key,))
                    else:
                        kind = ("bool" if isinstance(value, bool) else "string" if isinstance(value, str)
                                else "number" if isinstance(value, (int, float)) and math.isfinite(value) else "other")
                        yield "\\x1f".join(path + (key,)), [kind, value if kind != "other" else repr(value)]
            readings = []
            for text in json.load(sys.stdin):
                try:
                    readings.append(dict(flat(tomllib.loads(text))))
                except tomllib.TOMLDecodeError:
                    readings.append(None)
            json.dump(readings, sys.stdout)
            """
        let input = try JSONSerialization.data(withJSONObject: texts)
        let result = try await run("python3", ["-c", script], input: input)
        guard result.status == 0 else { throw TestFailure("python3 with tomllib failed (scripts/setup installs python3 3.11): \(result.error)") }
        let decoded = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [Any]
        return try (decoded ?? []).map { reading in
            guard let table = reading as? [String: [Any]] else { return nil }
            return try table.mapValues { pair in
                switch (pair.first as? String, pair.last) {
                case ("bool", let value as Bool): .bool(value)
                case ("string", let text as String): .string(text)
                case ("number", let number as Double): .number(number)
                case ("other", let text as String): .other(text)
                default: throw TestFailure("tomllib's reading is not [kind, value]: \(pair)")
                }
            }
        }
    }

    @Test("on every input of the table, cravey's parse and tomllib's agree as the table says")
    func agrees() async throws {
        let witnessed = try await Self.tomllib(Self.inputs.map(\.0))
        try #require(witnessed.count == Self.inputs.count)
        for ((text, expected), theirs) in zip(Self.inputs, witnessed) {
            let ours = Self.cravey(text)
            switch expected {
            case .same:
                #expect(ours != nil && ours == theirs, "\(text.debugDescription): cravey \(String(describing: ours)), tomllib \(String(describing: theirs))")
            case .bothRefuse:
                #expect(ours == nil && theirs == nil, "\(text.debugDescription): cravey \(String(describing: ours)), tomllib \(String(describing: theirs))")
            case .outsideTheSubset:
                #expect(ours == nil && theirs != nil, "\(text.debugDescription): cravey \(String(describing: ours)), tomllib \(String(describing: theirs))")
            }
        }
    }
}
