import CraveyCommands
import CraveyKit
import Dispatch
import Foundation
import Synchronization

/// Reads the player's keys from the terminal on stdin, one at a time without Enter or echo,
/// on a thread of its own, and puts the terminal back as it was with ``restore()``.
///
/// Ctrl-C keeps its meaning (the terminal still sends SIGINT, which stops and counts).
final class KeyReader: Sendable {
    private let saved: termios
    private let done = Atomic<Bool>(false)
    /// Signalled when the reading thread has ended, so that nothing typed after ``restore()`` (a
    /// line for a prompt) is taken as a key.
    private let finished = DispatchSemaphore(value: 0)

    /// Whether mouse clicks are reported (and reporting must be turned off again).
    private let mouse: Bool

    /// Switches the terminal to non-canonical mode without echo and starts reading; with
    /// `mouse`, asks the terminal on stderr to report clicks (xterm's SGR mouse reporting,
    /// `ESC [ ? 1000 h` and `ESC [ ? 1006 h`), which ``restore()`` turns off again.
    /// The corresponding C functions are `tcgetattr` and `tcsetattr`.
    init(mouse: Bool = false, handling handle: @escaping @Sendable (PlayerKey) -> Void) {
        self.mouse = mouse
        saved = Self.keysMode()
        if mouse { Terminal.diagnostic("\u{1B}[?1000h\u{1B}[?1006h", terminator: "") }
        Thread { [self] in read(handle) }.start()
    }

    /// Switches the terminal on stdin to reading keys as they are typed (non-canonical, a byte at
    /// a time, without echo; Ctrl-C still sends SIGINT) and returns its mode before, to put back
    /// with `tcsetattr`. The corresponding C functions are `tcgetattr` and `tcsetattr`.
    static func keysMode() -> termios {
        var mode = termios()
        tcgetattr(0, &mode)
        let saved = mode
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &mode)
        return saved
    }

    /// Puts the terminal back as it was and stops reading, once the reading thread has ended
    /// (within 0.1 s); a second call does nothing.
    func restore() {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        if mouse { Terminal.diagnostic("\u{1B}[?1000l\u{1B}[?1006l", terminator: "") }
        var mode = saved
        tcsetattr(0, TCSANOW, &mode)
    }

    private func read(_ handle: @Sendable (PlayerKey) -> Void) {
        defer { finished.signal() }
        var pending: [UInt8] = []
        while !done.load(ordering: .acquiring) {
            guard let bytes = Self.available(waiting: pending.isEmpty ? 100 : 30) else {
                // A lone Escape, not the start of a key's sequence; anything else left is cut short.
                if pending == [0x1B] { handle(.escape) }
                pending = []
                continue
            }
            pending += bytes
            while let (key, length) = Self.key(startingAt: pending) {
                if let key { handle(key) }
                pending.removeFirst(length)
            }
        }
    }

    /// The key `bytes` start with, if one the player knows, and how many bytes it takes; nil
    /// while they hold only the start of a sequence.
    ///
    /// Arrows, Home and End arrive as `ESC [` or `ESC O` sequences (`ESC [ C`, `ESC O H`,
    /// `ESC [ 1 ~`...), which end at their first byte from `@` to `~` (ECMA-48), and so do mouse
    /// reports (`ESC [ < 0 ; 12 ; 5 M`); an Escape followed by anything else is the Escape key.
    static func key(startingAt bytes: [UInt8]) -> (PlayerKey?, Int)? {
        guard let first = bytes.first else { return nil }
        guard first == 0x1B else { return (first < 0x80 ? .character(Character(UnicodeScalar(first))) : nil, 1) }
        guard bytes.count >= 2 else { return nil }
        guard [UInt8(ascii: "["), UInt8(ascii: "O")].contains(bytes[1]) else { return (.escape, 1) }
        guard let end = bytes.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else { return nil }
        let sequence = String(decoding: bytes[2...end], as: UTF8.self)
        // A mouse report: "<button;column;row" then M (pressed) or m (released); the left
        // button's press is a click, anything else (a release, the wheel, a drag) is nothing.
        if sequence.hasPrefix("<") {
            let fields = sequence.dropFirst().dropLast().split(separator: ";").compactMap { Int($0) }
            guard sequence.hasSuffix("M"), fields.count == 3, fields[0] == 0 else { return (nil, end + 1) }
            return (.click(column: fields[1], row: fields[2]), end + 1)
        }
        let key: PlayerKey? = switch sequence {
        case "C": .right
        case "D": .left
        case "H", "1~", "7~": .home
        case "F", "4~", "8~": .end
        default: nil
        }
        return (key, end + 1)
    }

    /// What stdin holds within `milliseconds`; nil when nothing came (or stdin ended).
    /// The corresponding C functions are `poll` and `read`.
    private static func available(waiting milliseconds: Int32) -> [UInt8]? {
        var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress, $0.count) }
        guard count > 0 else {
            // End of input: wait as poll would, so the loop does not spin.
            Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
            return nil
        }
        return Array(buffer.prefix(count))
    }
}
