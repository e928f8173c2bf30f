import Foundation

/// The systemd user manager that runs a person's timers, reached with `systemctl --user`; or,
/// where none runs, why not and what starts one.
///
/// One runs where systemd is the machine's first process (`/run/systemd/system` is there, as
/// `sd_booted` checks) and the person has a session, or lingering, which gives them
/// `$XDG_RUNTIME_DIR/systemd/private`. A container or a machine with another init has none: its
/// reminders are kept and their units written, and they are not active.
package struct UserManager: Sendable {
    /// Why no user manager runs here now, with what starts one; nil when one runs.
    package let absence: String?

    /// The manager of this process's user, as `environment` (`XDG_RUNTIME_DIR`) and the
    /// folder `booted` (`/run/systemd/system`) tell.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment, booted: String = "/run/systemd/system") {
        var info = stat()
        if stat(booted, &info) != 0 || info.st_mode & S_IFMT != S_IFDIR {
            absence = "systemd is not this machine's first process (a container, or another init), so no systemd user manager runs timers here; on a machine that runs systemd, `cravey remind resume` starts it"
        } else if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
                  stat(runtime + "/systemd/private", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK {
            absence = nil
        } else {
            absence = "no systemd user manager runs for you now (no login session); it starts with your next login, or `loginctl enable-linger` keeps one running: then `cravey remind resume` starts it"
        }
    }

    /// Runs `systemctl --user` with `arguments` (nothing where no manager runs); returns what
    /// went wrong, or nil. Blocks until it ends: call it on a thread of its own.
    @discardableResult
    package func systemctl(_ arguments: [String]) -> String? {
        if let absence { return absence }
        do {
            let child = try ChildProcess("systemctl", ["--user"] + arguments, searchingPath: true, input: .null, output: .null, errors: .pipe)
            let errors = String(decoding: child.errorsToEnd(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let ended = child.wait()
            return ended == .exit(0) ? nil : "`systemctl --user \(arguments.joined(separator: " "))` failed (\(ended)): \(errors)"
        } catch {
            return "cannot run systemctl: \(error)"
        }
    }

    /// Of the timers `names`, those the manager runs (`systemctl --user is-active`); none where
    /// no manager runs.
    package func active(_ names: [String]) -> Set<String> {
        guard absence == nil, !names.isEmpty,
              let child = try? ChildProcess("systemctl", ["--user", "is-active"] + names, searchingPath: true, input: .null, output: .pipe, errors: .null)
        else { return [] }
        let lines = String(decoding: child.outputToEnd(), as: UTF8.self).split(separator: "\n")
        _ = child.wait()
        return Set(zip(names, lines).filter { $0.1 == "active" }.map(\.0))
    }
}
