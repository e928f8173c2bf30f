import Foundation

/// A clip's words given on the command line (`--title`, `--notes`, `--purpose`, a marker's
/// `--label`), and a person's own words (`cravey words add|remove WORD`, `--heard-as`) kept from other
/// users: `/proc/PID/cmdline`, which `ps` shows, is readable by every local user for as long as
/// the process runs (a whole recording).
///
/// Each executable rewrites its own argument area once it has copied its arguments, as sshd and
/// postgres do (``hideFromProcessList()``): `ps` then shows `cravey record --title (hidden)`. And
/// `cravey` hands a media command to `cravey-media` with the words hidden the same way in the
/// new process's arguments, the real ones in an anonymous memory file (`memfd_create`) whose
/// descriptor `CRAVEY_ARGUMENTS_FD` names (``handOver(_:)``, ``received()``): only the same user
/// (or root) can read a process's descriptors and environment.
public enum HiddenArguments {
    /// The options whose value is a clip's words.
    static let options: Set<String> = ["--title", "--notes", "--purpose", "--label", "--heard-as"]
    /// The commands whose arguments are a person's own words: `cravey words add|remove WORD`.
    static let wordCommands: Set<String> = ["add", "remove"]
    static let environmentName = "CRAVEY_ARGUMENTS_FD"
    static let memoryFileName = "cravey-arguments"

    /// `arguments` with the value of every `--title`, `--notes` and `--purpose` replaced by
    /// `placeholder` (an empty value stays empty); nothing after `--` is an option.
    static func redacted(_ arguments: [String], placeholder: String = "(hidden)") -> [String] {
        var shown = arguments
        // The verb, after the program and a global --library PATH.
        var verb = 1
        if shown.count > 2, shown[1] == "--library" { verb = 3 } else if shown.count > 1, shown[1].hasPrefix("--library=") { verb = 2 }
        if verb + 1 < shown.count, shown[verb] == "words", wordCommands.contains(shown[verb + 1]) {
            var index = verb + 2
            while index < shown.count, shown[index] != "--" {
                if shown[index] == "--library" { index += 2; continue }
                if !shown[index].hasPrefix("-"), !shown[index].isEmpty, !options.contains(shown[index - 1]) { shown[index] = placeholder }
                index += 1
            }
        }
        var index = 0
        while index < shown.count {
            let argument = shown[index]
            if argument == "--" { break }
            if options.contains(argument), index + 1 < shown.count {
                if !shown[index + 1].isEmpty { shown[index + 1] = placeholder }
                index += 2
                continue
            }
            if let equals = argument.firstIndex(of: "="), options.contains(String(argument[..<equals])),
               argument.index(after: equals) < argument.endIndex {
                shown[index] = argument[...equals] + placeholder
            }
            index += 1
        }
        return shown
    }

    /// Rewrites this process's arguments as `ps` and `/proc/self/cmdline` show them, with a clip's
    /// words hidden; reads `CommandLine.arguments` first, which keeps the real ones for parsing.
    /// The arguments' own memory is rewritten in place (never grown): "(hidden)" where it fits,
    /// else "*".
    public static func hideFromProcessList() {
        let arguments = CommandLine.arguments
        let count = Int(CommandLine.argc)
        guard count == arguments.count, count > 0 else { return }
        let argv = CommandLine.unsafeArgv
        guard let start = argv[0], let last = argv[count - 1] else { return }
        // The strings lie one after the other, each ended by a NUL: the area ps reads.
        var expected = start
        for index in 0..<count {
            guard argv[index] == expected else { return }
            expected += strlen(expected) + 1
        }
        let area = last + strlen(last) + 1 - start
        for placeholder in ["(hidden)", "*"] {
            let shown = redacted(arguments, placeholder: placeholder)
            if shown == arguments { return }
            let bytes = shown.flatMap { Array($0.utf8) + [0] } as [UInt8]
            guard bytes.count <= area else { continue }
            memset(start, 0, area)
            bytes.withUnsafeBytes { source in UnsafeMutableRawPointer(start).copyMemory(from: source.baseAddress!, byteCount: source.count) }
            return
        }
    }

    /// Prepares the hand-off of `arguments` to another executable: when they hold a clip's words,
    /// writes them to an anonymous memory file left open across `exec`, names it in
    /// `CRAVEY_ARGUMENTS_FD`, and returns the arguments to exec with, the words hidden. Returns
    /// `arguments` unchanged when there is nothing to hide (or no memory file can be made: then
    /// the words are passed as before, and the new process hides them at once).
    public static func handOver(_ arguments: [String]) -> [String] {
        let shown = redacted(arguments)
        guard shown != arguments, let create = memfdCreate else { return arguments }
        let descriptor = create(memoryFileName, 0)
        guard descriptor >= 0 else { return arguments }
        var bytes = (arguments.flatMap { Array($0.utf8) + [0] } as [UInt8])[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                close(descriptor)
                return arguments
            }
            bytes = bytes.dropFirst(written)
        }
        lseek(descriptor, 0, SEEK_SET)
        setenv(environmentName, String(descriptor), 1)
        return shown
    }

    /// In the executable handed over to: the real arguments, when `CRAVEY_ARGUMENTS_FD` names a
    /// memory file ``handOver(_:)`` made whose arguments, hidden, are the ones this process was
    /// given (`shown`); nil otherwise. Closes it and removes the variable, so nothing this
    /// process starts inherits either.
    public static func received(shown: [String]) -> [String]? {
        guard let name = ProcessInfo.processInfo.environment[environmentName] else { return nil }
        unsetenv(environmentName)
        guard let descriptor = Int32(name), descriptor > 2 else { return nil }
        defer { close(descriptor) }
        // Only a memory file of ours: never some other file a stray variable points at.
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
              target.hasPrefix("/memfd:\(memoryFileName)") else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
        }
        guard data.last == 0 else { return nil }
        let arguments = data.dropLast().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        return redacted(arguments) == shown ? arguments : nil
    }

    /// The C library's `memfd_create`, which Swift's Glibc module leaves out, looked up by name.
    private static let memfdCreate: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "memfd_create") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32).self)
    }()
}
