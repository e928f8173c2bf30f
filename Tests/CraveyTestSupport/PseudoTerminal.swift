import Foundation

/// A program running on a pseudo-terminal, as in a person's terminal window: its stdin, stdout
/// and stderr are the terminal; the test types into it and reads everything it showed.
// @unchecked Sendable: `shown` and `ended` are only touched with `changed` locked; `controller` is
// read by the reading thread and written to by `type(_:)`, which a terminal allows at once.
public final class PseudoTerminal: @unchecked Sendable {
    public let process = TestProcess()
    private let controller: Int32
    private let changed = NSCondition()
    private var shown = Data()
    private var ended = false
    /// Set by ``hangUp()``: the reading thread stops, so the terminal can be closed for good.
    private var hangingUp = false
    private var readerDone = false
    private var closed = false
    /// Held while a terminal's name is looked up and opened.
    private static let naming = NSLock()

    /// Starts `executable` on a new pseudo-terminal, `typedAhead` typed at it before it starts
    /// (as a person types while a command is starting). The corresponding C functions are
    /// `posix_openpt`, `grantpt`, `unlockpt` and `ptsname`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], typedAhead: String = "") throws {
        controller = Libc.posixOpenpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard controller >= 0 else { throw TestFailure("no pseudo-terminal: \(String(cString: strerror(errno)))") }
        // ptsname returns a buffer every caller shares: two terminals opened at once (tests run
        // in parallel) could both open the second one's name.
        Self.naming.lock()
        guard Libc.grantpt(controller) == 0, Libc.unlockpt(controller) == 0, let name = Libc.ptsname(controller) else {
            Self.naming.unlock()
            close(controller)
            throw TestFailure("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let terminalEnd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        Self.naming.unlock()
        guard terminalEnd >= 0 else {
            close(controller)
            throw TestFailure("cannot open \(String(cString: name)): \(String(cString: strerror(errno)))")
        }
        let terminal = FileHandle(fileDescriptor: terminalEnd, closeOnDealloc: true)
        if !typedAhead.isEmpty {
            let typed = typedAhead.utf8.withContiguousStorageIfAvailable { write(controller, $0.baseAddress, $0.count) }
            guard typed == typedAhead.utf8.count else {
                close(controller)
                throw TestFailure("cannot type ahead at \(String(cString: name))")
            }
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        (process.standardInput, process.standardOutput, process.standardError) = (terminal, terminal, terminal)
        do {
            try process.run()
        } catch {
            close(controller)
            throw error
        }
        // Only the program holds the terminal end now, so reading ends when it exits.
        try terminal.close()
        Thread { [self] in readUntilClosed() }.start()
    }

    deinit { hangUp() }

    /// Closes the terminal, as closing its window does: the program, if the terminal is its
    /// controlling one (started under `setsid --ctty`), gets SIGHUP, and its writes there fail.
    /// The reading thread lets go of the terminal first (a read in progress would keep it open).
    public func hangUp() {
        changed.lock()
        hangingUp = true
        while !readerDone { changed.wait() }
        let closing = !closed
        closed = true
        changed.unlock()
        if closing { close(controller) }
    }

    /// Types `text` at the terminal.
    public func type(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Everything the terminal showed so far.
    public var output: String {
        changed.lock()
        defer { changed.unlock() }
        return String(decoding: shown, as: UTF8.self)
    }

    /// Blocks until what the terminal showed satisfies `condition`; false if it did not within
    /// `seconds` or the program ended first. Call it off the cooperative pool (``offPool(_:)``).
    public func waitUntilShown(within seconds: Double, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        changed.lock()
        defer { changed.unlock() }
        while !condition(String(decoding: shown, as: UTF8.self)) {
            guard !ended, changed.wait(until: deadline) else { return condition(String(decoding: shown, as: UTF8.self)) }
        }
        return true
    }

    /// Blocks until the program has exited and the terminal has shown all it wrote; returns it.
    public func waitForExit() -> String {
        process.waitForExit()
        changed.lock()
        // After a hang-up the reader stops without seeing the end: what it read is all there is.
        while !ended && !readerDone { changed.wait() }
        changed.unlock()
        return output
    }

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer {
            changed.lock()
            readerDone = true
            changed.broadcast()
            changed.unlock()
        }
        while true {
            changed.lock()
            let stop = hangingUp
            changed.unlock()
            if stop { return }
            var ready = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, 50)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            let count = buffer.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            changed.lock()
            // EIO: every program holding the terminal end has closed it.
            if count > 0 { shown.append(contentsOf: buffer[..<count]) } else { ended = true }
            changed.broadcast()
            changed.unlock()
            if count <= 0 { return }
        }
    }
}

/// The C library's pseudo-terminal functions, which Swift's Glibc module leaves out (its headers
/// declare them only for X/Open builds), looked up by name.
private enum Libc {
    static let posixOpenpt = function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
    static let grantpt = function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
    static let unlockpt = function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
    static let ptsname = function("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)

    private static func function<T>(_ name: String, as type: T.Type) -> T {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { fatalError("the C library has no \(name)") }
        return unsafeBitCast(symbol, to: type)
    }
}
