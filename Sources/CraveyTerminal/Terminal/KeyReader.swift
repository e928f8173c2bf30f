import CraveyKit
import Dispatch
import Foundation
import Synchronization

/// Reads keys from the terminal on stdin: the one reader of keys, with ``Terminal/ask(_:flushing:at:)``
/// the one of lines. The screens other than the home screen (the player, the recorder's meter,
/// the look back and the clean-up) read them one at a time without Enter or echo, on a thread of
/// its own, and put the terminal back as it was with ``restore()``; the terminal is lent by
/// ``TerminalMode``, which also gives it back on Ctrl-Z (and takes it again on `fg`), at `exit`
/// and on a crash. The home screen reads them as its loop wakes (``TerminalScreen/keys()``),
/// through the same ``Decoder``.
///
/// The thread sleeps in `poll` on stdin and on a pipe of its own until a key comes or
/// ``restore()`` writes to the pipe, which ends the thread at once; it wakes on a timer only
/// while an escape sequence is half read (a lone Escape is told from an arrow's start by the
/// 30 ms that follow it).
///
/// A paste (between the terminal's bracketed-paste marks, asked for by ``TerminalMode``) is text,
/// never keys: it is dropped whole.
///
/// Ctrl-C keeps its meaning (the terminal still sends SIGINT, which stops and counts).
package final class KeyReader: Sendable {
    /// The marks a terminal sends around a paste once asked (xterm's bracketed paste).
    static let pasteStart = Array("\u{1B}[200~".utf8), pasteEnd = Array("\u{1B}[201~".utf8)

    private let done = Atomic<Bool>(false)
    /// Signalled when the reading thread has ended, so that nothing typed after ``restore()`` (a
    /// line for a prompt) is taken as a key.
    private let finished = DispatchSemaphore(value: 0)
    /// The pipe that wakes the reading thread: it polls `output` beside stdin; ``restore()``
    /// writes a byte to `input`.
    private let wake: (output: Int32, input: Int32)

    /// Switches the terminal to reading keys (``TerminalMode/lend(mouse:redraw:)``) and starts
    /// reading; with `mouse`, clicks are reported too, until ``restore()``. `redraw` draws the
    /// line again when the terminal is taken back after Ctrl-Z and `fg`.
    /// The corresponding C function for the wake pipe is `pipe`.
    package init(mouse: Bool = false, redraw: (@Sendable () -> Void)? = nil, handling handle: @escaping @Sendable (Key) -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("cravey: cannot make a pipe for the keys: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = (ends[0], ends[1])
        TerminalMode.lend(mouse: mouse, redraw: redraw)
        Thread { [self] in read(handle) }.start()
    }

    /// The reading thread has ended (``restore()`` waited for it) when the last reference goes.
    deinit {
        close(wake.output)
        close(wake.input)
    }

    /// Puts the terminal back as it was and stops reading, once the reading thread has ended
    /// (at once: the write to the wake pipe ends its `poll`); a second call does nothing.
    package func restore() {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        while write(wake.input, &byte, 1) < 0, errno == EINTR {}
        finished.wait()
        TerminalMode.giveBack()
    }

    /// The reading thread: keys handed to `handle` as they come; a paste is no key here, and
    /// is dropped whole.
    private func read(_ handle: @Sendable (Key) -> Void) {
        defer { finished.signal() }
        var decoder = Decoder()
        var inputOpen = true
        while true {
            let keys: [Key]
            switch Self.next(from: inputOpen ? 0 : -1, wake: wake.output, waiting: decoder.waiting ? Decoder.escapeDelay : -1) {
            case .woken:
                return
            case .ended:
                // Nothing more will come: wait for the wake pipe alone.
                inputOpen = false
                decoder = Decoder()
                continue
            case .timedOut:
                keys = decoder.timedOut()
            case .bytes(let bytes):
                keys = decoder.keys(bytes)
            }
            for key in keys {
                if case .paste = key { continue }
                handle(key)
            }
        }
    }

    /// Keys from the terminal's bytes as they come, a read at a time: a key's sequence (an
    /// arrow's, a mouse report's, a character's UTF-8) may be cut between two reads, and a paste
    /// (between the terminal's bracketed-paste marks) is one ``Key/paste(_:)`` once its end mark
    /// has come.
    struct Decoder {
        /// How long (ms) an Escape alone waits for the rest of a sequence before it is the Escape key.
        static let escapeDelay: Int32 = 30
        /// The most of a paste kept (the rest is dropped, still read): far more than any line typed.
        static let pasteLimit = 65_536
        /// The bytes of a key not complete yet.
        private var pending: [UInt8] = []
        /// The text of a paste whose end mark has not come yet; nil outside a paste.
        private var pasting: [UInt8]?

        /// Whether a key's sequence waits for its rest: if nothing comes within ``escapeDelay``,
        /// ``timedOut()``.
        var waiting: Bool { !pending.isEmpty && pasting == nil }

        /// The keys `bytes` complete, in order. A paste's end without its start means a Ctrl-C
        /// inside the paste made the terminal throw away what came before it (its start
        /// included): the keys read with that end are the rest of the paste, and are dropped.
        mutating func keys(_ bytes: [UInt8]) -> [Key] {
            pending += bytes
            var keys: [Key] = []
            while true {
                if pasting != nil {
                    guard let end = KeyReader.end(of: KeyReader.pasteEnd, in: pending) else {
                        // An end mark may be cut between two reads: its start is kept.
                        let kept = max(pending.count - (KeyReader.pasteEnd.count - 1), 0)
                        if pasting!.count < Self.pasteLimit { pasting! += pending.prefix(min(kept, Self.pasteLimit - pasting!.count)) }
                        pending.removeFirst(kept)
                        return keys
                    }
                    let text = pasting! + pending.prefix(end - KeyReader.pasteEnd.count)
                    keys.append(.paste(String(decoding: text.prefix(Self.pasteLimit), as: UTF8.self)))
                    pending.removeFirst(end)
                    pasting = nil
                }
                guard let (key, length) = KeyReader.key(startingAt: pending) else { return keys }
                if pending.starts(with: KeyReader.pasteStart) {
                    pasting = []
                } else if pending.starts(with: KeyReader.pasteEnd) {
                    keys = []
                } else if let key {
                    keys.append(key)
                }
                pending.removeFirst(length)
            }
        }

        /// Nothing more came: an Escape alone is the Escape key; any other start of a sequence
        /// is dropped.
        mutating func timedOut() -> [Key] {
            defer { pending = [] }
            return pending == [0x1B] ? [.escape] : []
        }
    }

    /// The key `bytes` start with, if one a screen knows, and how many bytes it takes; nil
    /// while they hold only the start of a sequence.
    ///
    /// Enter, Tab, Backspace and the other control characters are keys of their own; another
    /// character comes as its UTF-8 (one to four bytes). Arrows, Home, End, Page Up and Down
    /// arrive as `ESC [` or `ESC O` sequences (`ESC [ C`, `ESC O H`, `ESC [ 1 ~`...), which end at
    /// their first byte from `@` to `~` (ECMA-48), and so do SGR mouse reports (`ESC [ < 0 ; 12 ;
    /// 5 M`); an X10 mouse report is `ESC [ M` and three bytes. An Escape followed by anything
    /// else is the Escape key.
    static func key(startingAt bytes: [UInt8]) -> (Key?, Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x1B: break
        case 0..<0x20: return (.control(Character(UnicodeScalar(first + 0x60))), 1)
        case 0..<0x80: return (.character(Character(UnicodeScalar(first))), 1)
        default: return character(startingAt: bytes)
        }
        guard bytes.count >= 2 else { return nil }
        guard [UInt8(ascii: "["), UInt8(ascii: "O")].contains(bytes[1]) else { return (.escape, 1) }
        if bytes[1] == UInt8(ascii: "["), bytes.count >= 3, bytes[2] == UInt8(ascii: "M") {
            guard bytes.count >= 6 else { return nil }
            return (mouse(button: Int(bytes[3]) - 32, column: Int(bytes[4]) - 33, row: Int(bytes[5]) - 33, pressed: true), 6)
        }
        guard let end = bytes.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else { return nil }
        let sequence = String(decoding: bytes[2...end], as: UTF8.self)
        // An SGR mouse report: "<button;column;row" (1-based) then M (pressed) or m (released).
        if sequence.hasPrefix("<") {
            let fields = sequence.dropFirst().dropLast().split(separator: ";").compactMap { Int($0) }
            guard fields.count == 3 else { return (nil, end + 1) }
            return (mouse(button: fields[0], column: fields[1] - 1, row: fields[2] - 1, pressed: sequence.hasSuffix("M")), end + 1)
        }
        let key: Key? = switch sequence {
        case "A": .up
        case "B": .down
        case "C": .right
        case "D": .left
        case "H", "1~", "7~": .home
        case "F", "4~", "8~": .end
        case "5~": .pageUp
        case "6~": .pageDown
        case "M": .enter  // the keypad's
        default: nil
        }
        return (key, end + 1)
    }

    /// A mouse report (0-based column and row): the left button's press is a click, the wheel
    /// turned up or down is the wheel; anything else (a release, a drag, another button) is nothing.
    private static func mouse(button: Int, column: Int, row: Int, pressed: Bool) -> Key? {
        guard pressed, column >= 0, row >= 0 else { return nil }
        switch button {
        case 0: return .click(row: row, column: column)
        case 64: return .wheelUp
        case 65: return .wheelDown
        default: return nil
        }
    }

    /// The character whose UTF-8 `bytes` start with (a byte of 0x80 or more first), and its
    /// length; nil while only its start has come. A byte that starts none is no key.
    private static func character(startingAt bytes: [UInt8]) -> (Key?, Int)? {
        let first = bytes[0]
        let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
        guard length > 1 else { return (nil, 1) }
        guard bytes.count >= length else { return nil }
        let text = String(validating: bytes[0..<length], as: UTF8.self)
        return (text.flatMap(\.first).map { .character($0) }, length)
    }

    /// One key from the terminal, read without Enter or echo (the terminal lent by
    /// ``TerminalMode`` meanwhile); nil at the end of input (or a terminal gone). Text pasted
    /// (between the terminal's bracketed-paste marks, or more than a key's bytes at once) is no
    /// key: it is thrown away, said (with `pasted`: the screen's keys), and the wait goes on.
    /// For a screen that asks for a line after a key (``Terminal/ask(_:flushing:)``), where the
    /// reading thread's reads ahead would take the line's start.
    /// The corresponding C functions are `read` and `poll`.
    static func next(pasted: String) -> Key? {
        TerminalMode.lend(mouse: false)
        defer { TerminalMode.giveBack() }
        // A byte at a time, so that what is typed after the key (a line for a prompt) stays
        // unread; an escape sequence (an arrow) arrives at once and is read whole.
        var bytes: [UInt8] = []
        while true {
            guard let byte = readByte() else { return nil }
            bytes.append(byte)
            var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            if bytes.first == 0x1B, key(startingAt: bytes) == nil, bytes.count < 8, poll(&waiting, 1, Decoder.escapeDelay) > 0 { continue }
            // A character's UTF-8 arrives at once: read whole.
            if bytes.first != 0x1B, key(startingAt: bytes) == nil { continue }
            if bytes == pasteStart || (bytes.first != 0x1B && poll(&waiting, 1, 0) > 0) {
                if bytes == pasteStart {
                    guard skipPaste() else { return nil }
                } else {
                    _ = Terminal.discardWaitingInput()
                }
                Terminal.diagnostic("Pasted text is not a key: nothing was done. \(pasted)")
                bytes = []
                continue
            }
            if let (key, _) = key(startingAt: bytes), let key { return key }
            bytes = []  // no key a screen knows
        }
    }

    /// What stdin holds now, read without waiting: the home screen's keys, read when its loop's
    /// `poll` says there are some. The corresponding C functions are `poll` and `read`.
    static func available() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        while poll(&waiting, 1, 0) > 0, waiting.revents & Int16(POLLIN) != 0 {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer.prefix(count)
        }
        return bytes
    }

    /// One byte of stdin (read again after a signal); nil at the end of input or on an error.
    /// The corresponding C function is `read`.
    private static func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = Foundation.read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            return count > 0 ? byte : nil
        }
    }

    /// Where `mark` ends in `bytes` (the index after its last byte), when it is there.
    static func end(of mark: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= mark.count else { return nil }
        return (0...(bytes.count - mark.count)).first { bytes[$0..<($0 + mark.count)].elementsEqual(mark) }.map { $0 + mark.count }
    }

    /// Reads and drops what stdin holds up to a paste's end mark (its start read); false when
    /// the input ended first. A byte at a time, so that nothing after the paste is read.
    /// The corresponding C function is `read`.
    static func skipPaste() -> Bool {
        var last: [UInt8] = []
        while true {
            guard let byte = readByte() else { return false }
            last = Array((last + [byte]).suffix(pasteEnd.count))
            if last == pasteEnd { return true }
        }
    }

    /// What ``next(from:wake:waiting:)`` found.
    private enum Input {
        case bytes([UInt8])
        /// Nothing came within the time asked.
        case timedOut
        /// The input ended (or failed): nothing more will come from it.
        case ended
        /// The wake pipe is readable: ``restore()`` was called.
        case woken
    }

    /// Waits until `input` (-1 for none) has bytes or ends, `wake` is readable, or `milliseconds`
    /// have passed (-1: no time limit), and reads what `input` holds.
    /// The corresponding C functions are `poll` and `read`.
    private static func next(from input: Int32, wake: Int32, waiting milliseconds: Int32) -> Input {
        var descriptors = [pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&descriptors, 2, milliseconds)
            if ready < 0, errno == EINTR { continue }
            // poll fails only for a bad argument: give up reading, as at the end of input.
            guard ready >= 0 else { return .ended }
            if descriptors[1].revents != 0 { return .woken }
            if ready == 0 { return .timedOut }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { Foundation.read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return .ended }
            return .bytes(Array(buffer.prefix(count)))
        }
    }
}
