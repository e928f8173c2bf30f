import Foundation
import Synchronization

/// Reads the player's keys from the terminal on stdin, one at a time without Enter or echo,
/// on a thread of its own, and puts the terminal back as it was with ``restore()``.
///
/// Ctrl-C keeps its meaning (the terminal still sends SIGINT, which stops and counts).
final class KeyReader: Sendable {
    enum Key: Sendable {
        case space, left, right, stop
    }

    private let saved: termios
    private let done = Atomic<Bool>(false)

    /// Switches the terminal to non-canonical mode without echo and starts reading.
    /// The corresponding C functions are `tcgetattr` and `tcsetattr`.
    init(handling handle: @escaping @Sendable (Key) -> Void) {
        var mode = termios()
        tcgetattr(0, &mode)
        saved = mode
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &mode)
        Thread { [self] in read(handle) }.start()
    }

    /// Puts the terminal back as it was and stops reading; a second call does nothing.
    func restore() {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var mode = saved
        tcsetattr(0, TCSANOW, &mode)
    }

    private func read(_ handle: @Sendable (Key) -> Void) {
        var pending: [UInt8] = []
        while !done.load(ordering: .acquiring) {
            guard let bytes = Self.available(waiting: pending.isEmpty ? 100 : 30) else {
                // A lone Escape, not the start of an arrow key's sequence.
                if pending == [0x1B] { handle(.stop) }
                pending = []
                continue
            }
            pending += bytes
            while let first = pending.first {
                if first == 0x1B {
                    guard pending.count >= 2 else { break }
                    guard pending[1] == UInt8(ascii: "[") else {
                        handle(.stop)
                        pending.removeFirst()
                        continue
                    }
                    guard pending.count >= 3 else { break }
                    switch pending[2] {
                    case UInt8(ascii: "C"): handle(.right)
                    case UInt8(ascii: "D"): handle(.left)
                    default: break
                    }
                    pending.removeFirst(3)
                    continue
                }
                switch first {
                case UInt8(ascii: " "): handle(.space)
                case UInt8(ascii: "q"), UInt8(ascii: "Q"): handle(.stop)
                default: break
                }
                pending.removeFirst()
            }
        }
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
