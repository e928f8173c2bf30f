import CraveyCore
import Foundation
import SystemPackage

/// The settings file's text (see ``Settings``): parsed line by line, changed one line at a time,
/// and written back in one step (a new file, mode 0600, renamed over the old one), in a folder
/// made mode 0700.
enum SettingsFile {
    /// The largest settings file read: a few lines are expected.
    static let largest = 64 << 10

    /// What a new file starts with.
    static let preamble = """
        # cravey's settings: one `key = value` a line (TOML). `cravey settings` lists them,
        # `cravey settings --help` says what each does; edit by hand or with
        # `cravey settings set KEY VALUE`. A flag given on a command wins over its setting.

        """

    /// The file's text. Throws `CocoaError.fileReadNoSuchFile` when there is none, and a
    /// ``CraveyError`` naming the trouble when it cannot be read as text.
    static func read(_ url: URL) throws -> String {
        let data = try Data(contentsOf: url)
        guard data.count <= largest else { throw CraveyError(.invalidInput, "it is \(data.count) bytes, more than a settings file holds (\(largest))") }
        guard let text = String(data: data, encoding: .utf8) else { throw CraveyError(.invalidInput, "it is not UTF-8 text") }
        return text
    }

    /// One line understood: a setting and its value (with the comment after it), or nothing (a
    /// blank line, a comment).
    struct Line {
        var key: Settings.Key
        var value: Settings.Value
        var comment: Substring?
    }

    /// The values `text` sets, each with its line, and what is wrong with it, each with its line.
    static func parse(_ text: String) -> (values: [Settings.Key: (value: Settings.Value, line: Int)], problems: [(line: Int, message: String)]) {
        var values: [Settings.Key: (value: Settings.Value, line: Int)] = [:]
        var problems: [(line: Int, message: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            switch parse(line: line) {
            case .success(nil): continue
            case .success(let setting?):
                if let earlier = values[setting.key] {
                    problems.append((index + 1, "\(setting.key.rawValue) is set twice (also at line \(earlier.line))"))
                } else {
                    values[setting.key] = (setting.value, index + 1)
                }
            case .failure(let problem): problems.append((index + 1, problem.message))
            }
        }
        return (values, problems)
    }

    struct Problem: Error {
        let message: String
    }

    /// One line of the file: a setting, nothing, or what is wrong with it.
    static func parse(line raw: Substring) -> Result<Line?, Problem> {
        let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))[...]
        if line.isEmpty || line.hasPrefix("#") { return .success(nil) }
        if line.hasPrefix("[") {
            return .failure(Problem(message: "tables ([...]) are not used here: write each setting on a line of its own, as `desktop.show-titles = true`"))
        }
        guard let equals = line.firstIndex(of: "=") else {
            return .failure(Problem(message: "\(CraveyError.quoted(line)) is not `key = value`"))
        }
        let name = line[..<equals].trimmingCharacters(in: .whitespaces)
        guard let key = Settings.Key(rawValue: name) else {
            return .failure(Problem(message: "\(CraveyError.quoted(name)) is not a setting; the settings are \(Settings.Key.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        let rest = line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
        let value: Settings.Value
        var after: Substring
        if let quote = rest.first, quote == "\"" || quote == "'" {
            guard let close = rest.dropFirst().firstIndex(of: quote) else {
                return .failure(Problem(message: "the value of \(key.rawValue) has no closing quote"))
            }
            let text = rest[rest.index(after: rest.startIndex)..<close]
            guard !text.contains("\\"), !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return .failure(Problem(message: "the value of \(key.rawValue) holds a backslash or a control character; it takes \(key.valid)"))
            }
            value = .string(String(text))
            after = rest[rest.index(after: close)...]
        } else {
            let token = rest.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            after = rest.drop { $0 != "#" }
            if token == "true" || token == "false" {
                value = .bool(token == "true")
            } else if let number = number(token) {
                value = .number(number)
            } else {
                return .failure(Problem(message: "\(CraveyError.quoted(token)) is not a value: write a word in double quotes (\(CraveyError.quoted(token, "\""))), true or false, or a number; \(key.rawValue) takes \(key.valid)"))
            }
        }
        after = after.drop { $0 == " " || $0 == "\t" }
        guard after.isEmpty || after.hasPrefix("#") else {
            return .failure(Problem(message: "\(CraveyError.quoted(after)) follows the value of \(key.rawValue) (a comment starts with #)"))
        }
        guard let accepted = key.accepts(value) else {
            return .failure(Problem(message: "\(key.rawValue) takes \(key.valid), not \(value)"))
        }
        return .success(Line(key: key, value: accepted, comment: after.isEmpty ? nil : after))
    }

    /// A TOML number of the kinds a setting takes: `-16`, `+5`, `-14.5`.
    private static func number(_ token: String) -> Double? {
        let digits = token.drop { $0 == "-" || $0 == "+" }
        guard token.count - digits.count <= 1, !digits.isEmpty, !digits.hasPrefix("."), !digits.hasSuffix("."),
              digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), digits.filter({ $0 == "." }).count <= 1 else { return nil }
        return Double(token)
    }

    /// `text` with `key` set to `value` (its line changed, keeping its comment, or a line added at
    /// the end), or with its line removed when `value` is nil. Every other line is kept as it is.
    static func changing(_ text: String, _ key: Settings.Key, to value: Settings.Value?) -> String {
        var lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var found = false
        lines = lines.compactMap { line in
            guard case .success(let parsed?) = parse(line: line[...]), parsed.key == key else { return line }
            found = true
            guard let value else { return nil }
            return "\(key.rawValue) = \(value)" + (parsed.comment.map { "  \($0)" } ?? "")
        }
        if !found, let value { lines.append("\(key.rawValue) = \(value)") }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Writes `text` as the settings file at `url`, in one step: a new file (mode 0600) renamed
    /// over the old one, in a folder made (mode 0700) if missing; a link there is written through.
    static func write(_ text: String, to url: URL) throws {
        let target = FileManager.default.fileExists(atPath: url.path) ? url.resolvingSymlinksInPath() : url
        let folder = target.deletingLastPathComponent()
        do {
            try makeFolder(folder)
            let temporary = folder.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString.prefix(8))")
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw Errno(rawValue: errno) }
            var renamed = false
            defer {
                close(descriptor)
                if !renamed { unlink(temporary.path) }
            }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw Errno(rawValue: errno) }
                bytes = bytes.dropFirst(written)
            }
            guard fsync(descriptor) == 0 else { throw Errno(rawValue: errno) }
            guard rename(temporary.path, target.path) == 0 else { throw Errno(rawValue: errno) }
            renamed = true
            let folderDescriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folderDescriptor >= 0 {
                _ = fsync(folderDescriptor)
                close(folderDescriptor)
            }
        } catch let error as Errno {
            throw CraveyError(.cannotWrite, "Cannot write the settings to \(target.path): \(error.description).", underlying: error)
        }
    }

    /// Makes `folder` and any missing folder above it, each mode 0700.
    private static func makeFolder(_ folder: URL) throws {
        var missing: [URL] = []
        var place = folder
        while !FileManager.default.fileExists(atPath: place.path), place.path != "/" {
            missing.append(place)
            place = place.deletingLastPathComponent()
        }
        for made in missing.reversed() where mkdir(made.path, 0o700) != 0 && errno != EEXIST {
            throw Errno(rawValue: errno)
        }
    }
}
