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

    /// The file's text, nil when there is none. It is read bounded and confined: its folder
    /// opened once, the file beneath it with `O_NOFOLLOW` (a link is refused, never followed) and
    /// `O_NONBLOCK` (a pipe does not hold the command), and never more than ``largest`` + 1 bytes
    /// of it read.
    ///
    /// Throws a ``CraveyError`` of kind `.unsafeConfiguration` (exit 77), naming the file, why it
    /// is not read and the fix, when it is a link or not a regular file, is larger than
    /// ``largest``, belongs to another user, or can be changed by other users, or its folder can:
    /// the file can let cravey use the network (`network.allow-servers`), so it is believed only
    /// when only its owner could have written it. A file that is not UTF-8 is `.invalidInput`.
    static func read(_ url: URL) throws -> String? {
        let folder = url.deletingLastPathComponent()
        let directory = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw refusal(url, "its folder cannot be opened (\(Errno(rawValue: errno)))", fix: "Check the folder's permissions.")
        }
        defer { close(directory) }
        let descriptor = openat(directory, url.lastPathComponent, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP:
                throw refusal(url, "it is a symbolic link, and cravey reads its settings only from a file of its own, never through a link",
                              fix: "Put the file itself in its place (cp --remove-destination \"$(readlink -f '\(url.path)')\" '\(url.path)'), or remove the link.")
            default:
                throw refusal(url, "it cannot be opened (\(Errno(rawValue: errno)))", fix: "Check its permissions (chmod 600 '\(url.path)').")
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw refusal(url, "it cannot be read (\(Errno(rawValue: errno)))", fix: "Check the disk.") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw refusal(url, "it is not a regular file (a folder, a pipe or a device)", fix: "Move it aside (mv '\(url.path)' '\(url.path).moved').")
        }
        let tooLarge = { (size: String) in
            refusal(url, "it is \(size) bytes, more than a settings file may hold (\(largest))",
                    fix: "Move it aside (mv '\(url.path)' '\(url.path).moved') and set your settings again with `cravey settings set`.")
        }
        guard info.st_size <= largest else { throw tooLarge("\(info.st_size)") }
        try checkWriters(info, of: url, fix: "chmod 600 '\(url.path)'")
        var folderInfo = stat()
        guard fstat(directory, &folderInfo) == 0 else { throw refusal(url, "its folder cannot be read (\(Errno(rawValue: errno)))", fix: "Check the disk.") }
        try checkWriters(folderInfo, of: url, folder: folder, fix: "chmod 700 '\(folder.path)'")
        var bytes = [UInt8](repeating: 0, count: largest + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw refusal(url, "it cannot be read (\(Errno(rawValue: errno)))", fix: "Check the disk.") }
            if read == 0 { break }
            count += read
        }
        // It grew while it was read.
        guard count <= largest else { throw tooLarge("more than \(largest)") }
        guard let text = String(validating: bytes.prefix(count), as: UTF8.self) else { throw CraveyError(.invalidInput, "it is not UTF-8 text") }
        return text
    }

    /// Refuses the file, or its folder, when another user owns it or may change it: anyone but
    /// its owner may write it (mode bits 022), or it belongs to a user other than this one or root.
    private static func checkWriters(_ info: stat, of url: URL, folder: URL? = nil, fix: String) throws {
        let what = folder.map { "its folder \($0.path)" } ?? "it"
        if info.st_uid != geteuid() && info.st_uid != 0 {
            throw refusal(url, "\(what) belongs to user \(info.st_uid), not to you (user \(geteuid())), who could change it",
                          fix: "Move the file into a folder of your own, or run `chown \(geteuid()) '\(folder?.path ?? url.path)'`.")
        }
        if info.st_mode & 0o022 != 0 {
            throw refusal(url, """
                \(what) can be changed by other users (mode \(String(info.st_mode & 0o777, radix: 8))), and the settings can \
                let cravey use the network (network.allow-servers)
                """, fix: "Run `\(fix)`.")
        }
    }

    /// The settings file at `url` is not read, for `reason`: what to do is `fix`.
    private static func refusal(_ url: URL, _ reason: String, fix: String) -> CraveyError {
        CraveyError(.unsafeConfiguration, "The settings file \(url.path) was not read: \(reason). \(fix) No command runs until then.")
    }

    /// One line understood: a setting and its value (with the comment after it), or nothing (a
    /// blank line, a comment).
    struct Line {
        var key: Settings.Key
        var value: Settings.Value
        var comment: Substring?
    }

    /// Whether `character` ends a line: a line feed, or a carriage return and a line feed (an
    /// editor on Windows), which Swift reads as one Character.
    static func endsLine(_ character: Character) -> Bool {
        character == "\n" || character == "\r\n"
    }

    /// The values `text` sets, each with its line, and what is wrong with it, each with its line.
    static func parse(_ text: String) -> (values: [Settings.Key: (value: Settings.Value, line: Int)], problems: [(line: Int, message: String)]) {
        var values: [Settings.Key: (value: Settings.Value, line: Int)] = [:]
        var problems: [(line: Int, message: String)] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: Self.endsLine).enumerated() {
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
        // A comment may hold anything but a control character (a tab aside), as TOML says.
        if let comment = line.firstIndex(of: "#").map({ line[$0...] }),
           let control = comment.unicodeScalars.first(where: { $0 != "\t" && $0.properties.generalCategory == .control }) {
            return .failure(Problem(message: "a comment holds a control character (U+\(String(format: "%04X", control.value))): remove it"))
        }
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

    /// A TOML number of the kinds a setting takes: `-16`, `+5`, `-14.5`; no leading zero (`016`),
    /// which TOML refuses.
    private static func number(_ token: String) -> Double? {
        let digits = token.drop { $0 == "-" || $0 == "+" }
        guard token.count - digits.count <= 1, !digits.isEmpty, !digits.hasPrefix("."), !digits.hasSuffix("."),
              digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), digits.filter({ $0 == "." }).count <= 1 else { return nil }
        let whole = digits.prefix { $0 != "." }
        guard whole.count == 1 || !whole.hasPrefix("0") else { return nil }
        return Double(token)
    }

    /// `text` with `key` set to `value` (its line changed, keeping its comment, or a line added at
    /// the end), or with its line removed when `value` is nil. Every other line is kept as it is.
    static func changing(_ text: String, _ key: Settings.Key, to value: Settings.Value?) -> String {
        var lines = text.isEmpty ? [] : text.split(omittingEmptySubsequences: false, whereSeparator: Self.endsLine).map(String.init)
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
    /// over the old one (``read(_:)`` refuses a link there first), in a folder made (mode 0700)
    /// if missing; a folder that others can change is refused as ``read(_:)`` refuses it.
    static func write(_ text: String, to url: URL) throws {
        let target = url
        let folder = target.deletingLastPathComponent()
        do {
            try makeFolder(folder)
            var folderInfo = stat()
            guard stat(folder.path, &folderInfo) == 0 else { throw Errno(rawValue: errno) }
            try checkWriters(folderInfo, of: url, folder: folder, fix: "chmod 700 '\(folder.path)'")
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
