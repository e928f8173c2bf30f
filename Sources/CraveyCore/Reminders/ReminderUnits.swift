import Foundation

/// A reminder made real: a systemd user timer (`OnCalendar=` its days and time,
/// `Persistent=true`, so a time missed while the machine slept fires when it wakes) and the
/// service it starts, `cravey remind --fire N --library PATH`, written to the user's systemd
/// folder (`$XDG_CONFIG_HOME/systemd/user`) under names of cravey's own,
/// `cravey-remind-<library>-<N>.timer` and `.service` (`<library>`: the first 8 characters of
/// the library's identity, so two libraries' reminders never share a name).
///
/// cravey knows a unit file is its own by its first line, ``mark``: a file of one of those names
/// without it (a person's, another program's, a link) is never overwritten or removed. Where a
/// systemd user manager runs (``UserManager``) the units are reloaded and the timer enabled
/// and started (`systemctl --user`); where none runs they are written all the same, and the
/// list says the reminder is not active, why, and what starts it.
package struct ReminderUnits: Sendable {
    /// The first line of every unit file cravey writes: how it knows the file is its own.
    package static let mark = "# Written by cravey (`cravey remind`), which rewrites and removes this file; it never touches a file of this name without this line."

    /// The user's systemd folder the units are written to.
    package let folder: URL
    /// The `cravey` the service runs.
    package let program: String
    /// The library whose reminders they are.
    package let library: URL
    /// The start of every unit's name: `cravey-remind-<first 8 of the library's identity>-`.
    package let prefix: String
    /// The user manager that runs them, or why none does.
    package let manager: UserManager

    /// `$XDG_CONFIG_HOME/systemd/user` for the configuration folder `configuration` (the parent
    /// of cravey's own settings' folder).
    package static func folder(in configuration: URL) -> URL {
        configuration.appendingPathComponent("systemd/user")
    }

    /// The timer's and the service's file names of the reminder numbered `number`.
    package func names(_ number: Int64) -> (timer: String, service: String) {
        ("\(prefix)\(number).timer", "\(prefix)\(number).service")
    }

    /// systemd's calendar event for a reminder, in its normalized form (`systemd-analyze
    /// calendar` prints it back the same): `Mon..Fri *-*-* 18:30:00`, `Mon,Fri..Sun *-*-*
    /// 23:59:00`, or `*-*-* 18:30:00` for every day; in the machine's time zone. Its days are
    /// written as ``Weekdays``' description writes them (three or more in a row a range), as
    /// systemd normalizes them, with capitals.
    package static func calendar(_ reminder: Reminder) -> String {
        let days = reminder.days == .daily ? "" : reminder.days.description.split(separator: ",").map { part in
            part.components(separatedBy: "..").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "..")
        }.joined(separator: ",") + " "
        return "\(days)*-*-* \(reminder.time):00"
    }

    /// The timer's file: its days and time, persistent, wanted by `timers.target`. It names no
    /// clip (the desktop's list of timers is seen by anyone at the screen).
    package func timer(_ reminder: Reminder) -> String {
        let number = reminder.number ?? 0
        return """
            \(Self.mark)
            [Unit]
            Description=cravey reminder \(number) (\(reminder.time) \(reminder.days))

            [Timer]
            OnCalendar=\(Self.calendar(reminder))
            Persistent=true
            Unit=\(names(number).service)

            [Install]
            WantedBy=timers.target

            """
    }

    /// The service's file: `cravey remind --fire N --library PATH`, run once; `Type=exec`, so
    /// that the question it asks may wait for its answer (a `oneshot` is stopped after 90 s).
    package func service(_ reminder: Reminder) throws -> String {
        let number = reminder.number ?? 0
        let command = try [program, "remind", "--fire", String(number), "--library", library.path].map(Self.quoted).joined(separator: " ")
        return """
            \(Self.mark)
            [Unit]
            Description=cravey reminder \(number): offer a clip

            [Service]
            Type=exec
            ExecStart=\(command)

            """
    }

    /// An argument of `ExecStart=` as systemd reads it: as it is when it holds only letters,
    /// digits and `/._-:,+@=`; else in double quotes, `\` and `"` escaped, `%` doubled (a
    /// specifier otherwise) and `$` doubled (a variable otherwise). A line break cannot be in
    /// one: refused (`.invalidInput`).
    static func quoted(_ argument: String) throws -> String {
        guard !argument.contains(where: \.isNewline) else {
            throw CraveyError(.invalidInput, "A systemd unit cannot name \(CraveyError.quoted(argument, "\"")): it holds a line break. Use a library folder whose path has none.")
        }
        if !argument.isEmpty, argument.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/._-:,+@=".contains($0)) }) { return argument }
        var text = "\""
        for character in argument {
            switch character {
            case "\\", "\"": text += "\\\(character)"
            case "%": text += "%%"
            case "$": text += "$$"
            default: text.append(character)
            }
        }
        return text + "\""
    }

    /// Whether the file `name` in the folder may be written or removed: it is not there, or it
    /// is a regular file cravey wrote (its first line ``mark``).
    func isOurs(_ name: String) -> Bool {
        let path = folder.appendingPathComponent(name).path
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT }
        guard info.st_mode & S_IFMT == S_IFREG, let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: Self.mark.utf8.count + 1)) ?? Data()
        return start == Data((Self.mark + "\n").utf8)
    }

    /// The refusal for a file of cravey's name that cravey did not write.
    private func notOurs(_ name: String, _ number: Int64) -> CraveyError {
        CraveyError(.invalidInput, "\(folder.appendingPathComponent(name).path) is there and cravey did not write it (its first line is not cravey's), so it is left as it is. Move it away, then `cravey remind resume \(number)`.")
    }

    /// Writes the reminder's two unit files (mode 0600, each in one step), the folder made (0700)
    /// if it is not there. Refused (`.invalidInput`), writing neither, when a file of either name
    /// is not cravey's.
    package func write(_ reminder: Reminder) throws {
        let number = reminder.number ?? 0
        let (timerName, serviceName) = names(number)
        for name in [timerName, serviceName] where !isOurs(name) { throw notOurs(name, number) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for (name, text) in [(serviceName, try service(reminder)), (timerName, timer(reminder))] {
            try FileStorageManager.writeAtomically(to: folder.appendingPathComponent(name), doing: "write the systemd unit") { file in
                try file.write(Data(text.utf8))
            }
        }
    }

    /// Removes the reminder's unit files that cravey wrote; returns those of its names it left
    /// because cravey did not write them.
    package func remove(_ number: Int64) -> [String] {
        let (timerName, serviceName) = names(number)
        return [timerName, serviceName].filter { name in
            guard isOurs(name) else { return true }
            unlink(folder.appendingPathComponent(name).path)
            return false
        }
    }

    /// Whether both of the reminder's unit files are there and cravey's.
    package func areWritten(_ number: Int64) -> Bool {
        let (timerName, serviceName) = names(number)
        return [timerName, serviceName].allSatisfy { name in
            FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) && isOurs(name)
        }
    }

    /// Why a reminder's timer does not run, with what starts it; nil when it runs (`active`: the
    /// timers the manager runs, ``UserManager/active(_:)``).
    package func inactive(_ reminder: Reminder, active: Set<String>) -> String? {
        let number = reminder.number ?? 0
        if !areWritten(number) {
            return "its systemd units are not written (`cravey remind resume \(number)` writes them)"
        }
        if let absence = manager.absence { return absence }
        return active.contains(names(number).timer) ? nil : "its timer is not running (`cravey remind resume \(number)` starts it)"
    }

    /// Reloads the user manager's units and enables and starts `reminders`' timers (their units
    /// written); returns why they are not active (where no manager runs, or systemctl failed),
    /// or nil. Blocks until systemctl ends: call it off the cooperative pool.
    package func start(_ reminders: [Reminder]) -> String? {
        let timers = reminders.compactMap { $0.number.map { names($0).timer } }
        guard !timers.isEmpty else { return nil }
        if let absence = manager.absence { return absence }
        return manager.systemctl(["daemon-reload"]) ?? manager.systemctl(["enable", "--now"] + timers)
    }

    /// Undoes ``write(_:)`` and ``start(_:)`` for the reminder numbered `number`, removed from the
    /// library: its timer disabled and stopped where a manager runs, its unit files that cravey
    /// wrote removed, the manager reloaded. Returns the warnings to say: a systemctl that failed,
    /// and each file of its names left because cravey did not write it. Blocks until systemctl
    /// ends: call it off the cooperative pool.
    package func unmake(_ number: Int64) -> [String] {
        var warnings: [String] = []
        if manager.absence == nil, let failed = manager.systemctl(["disable", "--now", names(number).timer]) { warnings.append(failed) }
        for left in remove(number) {
            warnings.append("left \(folder.appendingPathComponent(left).path) as it is: cravey did not write it.")
        }
        if manager.absence == nil { manager.systemctl(["daemon-reload"]) }
        return warnings
    }
}
