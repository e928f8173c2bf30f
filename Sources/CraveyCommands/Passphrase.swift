import ArgumentParser
import CraveyCore
import Foundation
import SystemPackage

/// Where an encrypted backup's passphrase comes from, never from an option's value (which `ps`
/// shows every user): a file descriptor (`--passphrase-fd N`, for scripts: `3<secret`), else the
/// file `CRAVEY_PASSPHRASE_FILE` names, else typed at the terminal without being shown (twice for
/// a new backup, as `age -p` asks). From a descriptor or a file, its first line is the passphrase.
package struct PassphraseInput {
    var descriptor: Int32?
    var environment = ProcessInfo.processInfo.environment

    package init(descriptor: Int32?) {
        self.descriptor = descriptor
    }

    /// The passphrase; `confirming` asks for it twice at a terminal. Throws `.invalidInput` (exit 64)
    /// for an empty one, two that differ, or no way to read one; `ExitCode(130)` when Ctrl-C or
    /// Ctrl-D ends the prompt.
    package func read(confirming: Bool) throws -> String {
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
                throw CraveyError(.invalidInput, "The backup's passphrase cannot be asked for: there is no terminal.", advice: .givePassphrase)
            }
            let first = try terminal.ask(confirming ? "Passphrase for the new backup (it cannot be recovered if lost): " : "Passphrase: ")
            if confirming, !first.isEmpty, try terminal.ask("The same passphrase again: ") != first {
                throw CraveyError(.invalidInput, "The two passphrases differ. Nothing was written.")
            }
            passphrase = first
        }
        guard !passphrase.isEmpty else {
            throw CraveyError(.invalidInput, "The passphrase is empty; an encrypted backup needs one. Nothing was \(confirming ? "written" : "restored").")
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

/// A passphrase typed at the terminal (`/dev/tty`, else stdin when it is one), not shown: the
/// terminal's echo, line editing and signal keys are off while it is typed, and put back however
/// the prompt ends. Backspace and Ctrl-U edit; Enter ends it; Ctrl-C or Ctrl-D cancels.
final class PassphrasePrompt {
    private let input: Int32
    private let output: Int32
    private let owned: Bool

    init?() {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        if tty >= 0 {
            (input, output, owned) = (tty, tty, true)
        } else if isatty(0) == 1 {
            (input, output, owned) = (0, 2, false)
        } else {
            return nil
        }
    }

    deinit { if owned { close(input) } }

    /// Shows `prompt` and returns what is typed up to Enter.
    func ask(_ prompt: String) throws -> String {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else {
            throw CraveyError(.invalidInput, "The backup's passphrase cannot be asked for: the terminal does not answer.", advice: .givePassphrase)
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        withUnsafeMutableBytes(of: &quiet.c_cc) { controls in
            controls[Int(VMIN)] = 1
            controls[Int(VTIME)] = 0
        }
        // Quiet before the prompt shows: nothing typed after it is ever echoed.
        tcsetattr(input, TCSAFLUSH, &quiet)
        show(prompt)
        defer {
            tcsetattr(input, TCSAFLUSH, &saved)
            show("\n")
        }
        var typed: [UInt8] = []
        while true {
            var byte: UInt8 = 0
            let count = read(input, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { throw Self.cancelled() }
            switch byte {
            case 0x0D, 0x0A: return String(decoding: typed, as: UTF8.self)
            case 0x03: throw Self.cancelled()
            case 0x04 where typed.isEmpty: throw Self.cancelled()
            case 0x7F, 0x08:
                // One character back: a UTF-8 lead byte and its continuation bytes.
                while let last = typed.popLast(), last & 0xC0 == 0x80 {}
            case 0x15: typed.removeAll()
            default: typed.append(byte)
            }
        }
    }

    /// Ctrl-C, Ctrl-D or a closed terminal at the prompt: exit 130, nothing done.
    private static func cancelled() -> ExitCode {
        Terminal.diagnostic("\ncravey: cancelled at the passphrase prompt; nothing was changed.")
        return ExitCode(130)
    }

    private func show(_ text: String) {
        _ = try? FileDescriptor(rawValue: output).writeAll(text.utf8)
    }
}
