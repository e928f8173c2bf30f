import ArgumentParser
import CraveyCore
import Foundation
import SystemPackage

/// Where a passphrase (an encrypted backup's, a sync folder's) comes from, never from an option's value (which `ps`
/// shows every user): a file descriptor (`--passphrase-fd N`, for scripts: `3<secret`), else the
/// file `CRAVEY_PASSPHRASE_FILE` names, else typed at the terminal without being shown (twice for
/// a new backup, as `age -p` asks). From a descriptor or a file, its first line is the passphrase.
package struct PassphraseInput {
    var descriptor: Int32?
    var environment = ProcessInfo.processInfo.environment

    package init(descriptor: Int32?) {
        self.descriptor = descriptor
    }

    /// The passphrase of `subject` (what it opens: "backup", "sync folder"); `confirming` asks for
    /// it twice at a terminal (a new one). Throws `.invalidInput` (exit 64) for an empty one, two
    /// that differ, or no way to read one; `ExitCode(130)` when Ctrl-C or Ctrl-D ends the prompt.
    package func read(confirming: Bool, of subject: String = "backup") throws -> String {
        let passphrase: String
        if let descriptor {
            passphrase = try Self.firstLine(of: FileDescriptor(rawValue: descriptor), named: "--passphrase-fd \(descriptor)")
        } else if let path = environment["CRAVEY_PASSPHRASE_FILE"], !path.isEmpty {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw CraveyError(.invalidInput, "Cannot read the passphrase from \(path) (CRAVEY_PASSPHRASE_FILE): \(String(cString: strerror(errno))).")
            }
            defer { close(descriptor) }
            var info = stat()
            if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 {
                Terminal.diagnostic("cravey: warning: \(path), which holds the passphrase, can be read by other users (chmod 600 '\(path)').")
            }
            passphrase = try Self.firstLine(of: FileDescriptor(rawValue: descriptor), named: path)
        } else {
            guard let terminal = PassphrasePrompt() else {
                throw CraveyError(.invalidInput, "The \(subject)'s passphrase cannot be asked for: there is no terminal.", advice: .givePassphrase)
            }
            let first = try terminal.ask(confirming ? "Passphrase for the new \(subject) (it cannot be recovered if lost): " : "Passphrase: ")
            if confirming, !first.isEmpty, try terminal.ask("The same passphrase again: ") != first {
                throw CraveyError(.invalidInput, "The two passphrases differ. Nothing was written.")
            }
            passphrase = first
        }
        guard !passphrase.isEmpty else {
            throw CraveyError(.invalidInput, "The passphrase is empty; an encrypted \(subject) needs one. Nothing was \(subject == "backup" ? confirming ? "written" : "restored" : "changed").")
        }
        return passphrase
    }

    /// The first line read from `descriptor` (up to a line break, or its end), without the break.
    private static func firstLine(of descriptor: FileDescriptor, named name: String) throws -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !bytes.contains(UInt8(ascii: "\n")), bytes.count < 64 << 10 {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
            } catch {
                throw CraveyError(.invalidInput, "Cannot read the passphrase from \(name): \(error).")
            }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw CraveyError(.invalidInput, "The passphrase from \(name) is not UTF-8 text.")
        }
        return text
    }
}

/// A passphrase typed at the terminal (`/dev/tty`, else stdin when it is one), not shown: asked
/// as every question is (``Terminal/ask(_:flushing:at:)``), hidden, so that the terminal's echo and
/// signal keys are off while it is typed and put back however the prompt ends. Backspace and
/// Ctrl-U edit; Enter ends it; Ctrl-C or Ctrl-D cancels.
final class PassphrasePrompt {
    private let terminal: Terminal.Asking
    private let owned: Bool

    init?() {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        if tty >= 0 {
            (terminal, owned) = (Terminal.Asking(input: tty, output: tty, hidden: true), true)
        } else if Terminal.isTerminal(0) {
            (terminal, owned) = (Terminal.Asking(input: 0, output: 2, hidden: true), false)
        } else {
            return nil
        }
    }

    deinit { if owned { close(terminal.input) } }

    /// Shows `prompt` and returns what is typed up to Enter.
    func ask(_ prompt: String) throws -> String {
        var mode = termios()
        guard tcgetattr(terminal.input, &mode) == 0 else {
            throw CraveyError(.invalidInput, "The backup's passphrase cannot be asked for: the terminal does not answer.", advice: .givePassphrase)
        }
        switch Terminal.ask(prompt, at: terminal) {
        case .line(let passphrase): return passphrase
        case .pasted: throw CraveyError(.invalidInput, "The passphrase held a line break (pasted?); it is not taken. Nothing was changed.", advice: .givePassphrase)
        case .ended: throw Self.cancelled()
        }
    }

    /// Ctrl-C, Ctrl-D or a closed terminal at the prompt: exit 130, nothing done.
    private static func cancelled() -> ExitCode {
        Terminal.diagnostic("\ncravey: cancelled at the passphrase prompt; nothing was changed.")
        return ExitCode(130)
    }
}
