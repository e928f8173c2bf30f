import Foundation
import SystemPackage

/// Questions asked at the terminal on stdin: a line read as a line, and a confirmation that reads
/// only what was typed after it was asked.
extension Terminal {
    /// What was typed after a question.
    package enum Answer: Equatable, Sendable {
        /// One line, without its line break.
        case line(String)
        /// Text with a line break inside it (pasted, most likely): more text was already there
        /// when the first line ended. It is no answer, and none of it is read as what comes next.
        case pasted
        /// The end of input (Ctrl-D on an empty line, a terminal gone), or Ctrl-C at a hidden line.
        case ended
    }

    /// The terminal a question is asked at: where its answer is read, and where it shows.
    package struct Asking: Sendable {
        package var input: Int32 = 0
        package var output: Int32 = 2
        /// Whether what is typed is hidden (a passphrase): the terminal's echo is off, and so are
        /// its signal keys, Ctrl-C ending the line as no answer (``Answer/ended``).
        package var hidden = false

        package init(input: Int32 = 0, output: Int32 = 2, hidden: Bool = false) {
            (self.input, self.output, self.hidden) = (input, output, hidden)
        }
    }

    /// Asks `question` and reads the line typed after it at the terminal (`at`: stdin, the
    /// question on stderr, unless said otherwise), as the terminal edits it (canonical mode:
    /// Backspace, Ctrl-U). Hidden, the echo and the signal keys are off while it is typed, and
    /// put back however it ends. Text pasted with a line break inside it is `.pasted`, and what
    /// followed the break is thrown away, never read as a key or the next answer. With
    /// `flushing` (always when hidden), what was typed before the question showed is thrown
    /// away first: a confirmation reads only what was typed after it was asked.
    ///
    /// The one place a line is read from a terminal: the commands' questions, the look back's
    /// words and a backup's passphrase. Blocks until a line is typed: call it off the cooperative
    /// pool. The corresponding C functions are `tcflush`, `tcsetattr`, `read` and `poll`.
    package static func ask(_ question: String, flushing: Bool = false, at terminal: Asking = Asking()) -> Answer {
        let show = { (text: String) in
            if terminal.output == 2 { diagnostic(text, terminator: "") } else { _ = try? FileDescriptor(rawValue: terminal.output).writeAll(text.utf8) }
        }
        var saved = termios()
        if terminal.hidden, tcgetattr(terminal.input, &saved) == 0 {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO | ISIG)
            quiet.c_lflag |= tcflag_t(ICANON)
            quiet.c_iflag |= tcflag_t(ICRNL)  // Enter ends the line, whatever mode it was left in
            // Ctrl-C, its signal off, ends the line: read as no answer.
            withUnsafeMutableBytes(of: &quiet.c_cc) { $0[Int(VEOL)] = 0x03 }
            // Quiet, and what was typed ahead thrown away, before the question shows.
            tcsetattr(terminal.input, TCSAFLUSH, &quiet)
        } else if flushing {
            // Thrown away before the question shows: whatever comes once it shows is the answer.
            tcflush(terminal.input, TCIFLUSH)
        }
        defer {
            if terminal.hidden {
                tcsetattr(terminal.input, TCSAFLUSH, &saved)
                show("\n")
            }
        }
        show(question)
        var typed: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(terminal.input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            // The end of input: a line cut short by it is still what was typed.
            guard count > 0 else { return typed.isEmpty || terminal.hidden ? .ended : .line(String(decoding: typed, as: UTF8.self)) }
            typed += buffer[..<count]
            guard let end = typed.firstIndex(where: { $0 == UInt8(ascii: "\n") || (terminal.hidden && $0 == 0x03) }) else { continue }
            if typed[end] == 0x03 { return .ended }
            let more = end + 1 < typed.count
            // A terminal hands over a line at a time: what a paste held past its first line is
            // still waiting there.
            return discardWaitingInput(on: terminal.input) || more ? .pasted : .line(String(decoding: typed[..<end], as: UTF8.self))
        }
    }

    /// Throws away what is waiting to be read at the terminal on `input` (stdin), a line not yet ended
    /// included (the terminal keeps that back in canonical mode, so it is read in non-canonical
    /// mode for a moment, the echo as it was), and any more that arrives within 30 ms (a long
    /// paste comes in pieces); true when there was any. The terminal's mode is left as it was.
    /// The corresponding C functions are `tcsetattr`, `poll` and `read`.
    package static func discardWaitingInput(on input: Int32 = 0) -> Bool {
        var mode = termios()
        guard tcgetattr(input, &mode) == 0 else { return false }
        var reading = mode
        reading.c_lflag &= ~tcflag_t(ICANON)
        withUnsafeMutableBytes(of: &reading.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(input, TCSANOW, &reading)
        defer { tcsetattr(input, TCSANOW, &mode) }
        var found = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        var waiting = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        while poll(&waiting, 1, 30) > 0 {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            found = true
        }
        return found
    }

    /// Asks on a terminal; refuses (exit 64) when stdin is not one and `--yes` was not given.
    /// `action` names what is asked ("delete", "cut") in the refusal, and `declined` is the
    /// answer to a no. Only an answer typed after the question counts, and a pasted one never does.
    package static func confirm(_ question: String, yes: Bool, action: String = "delete",
                                declined: String = "Nothing was deleted.") throws -> Bool {
        if yes { return true }
        guard isTerminal(0) else {
            throw CraveyError(.invalidInput, "Refusing to \(action) without confirmation: stdin is not a terminal. Add --yes to \(action) anyway.")
        }
        switch ask("\(question) [y/N] ", flushing: true) {
        case .line(let answer) where ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()):
            return true
        case .pasted:
            diagnostic("cravey: the answer held a line break (pasted?); it is not taken as one. \(declined)")
            return false
        case .line, .ended:
            diagnostic(declined)
            return false
        }
    }
}
