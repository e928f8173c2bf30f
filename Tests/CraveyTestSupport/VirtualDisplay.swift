import CraveyKit
import Foundation

/// A headless X server (Xvfb) of the test's own, for a player's window: the tests running at
/// once each get one, so their windows never overlap. It finds windows by title, reads the
/// screen back (FFmpeg's x11grab), sends keys (xdotool) and closes windows as a window manager
/// does.
public final class VirtualDisplay: Sendable {
    /// The display's name, such as `:42`, for `DISPLAY`.
    public let name: String
    private let server: TestProcess
    private let windowManager: TestProcess?

    /// A window as the X server places it.
    public struct Window: Sendable, Equatable {
        public var id: String
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int
    }

    /// Starts Xvfb on a display number it finds free, with a black screen of `width` x `height`;
    /// with `windowManager`, openbox manages its windows (full screen needs one). The start is
    /// awaited off the cooperative pool.
    public init(width: Int = 1280, height: Int = 800, windowManager: Bool = false) async throws {
        (server, name, self.windowManager) = try await offPool {
            try Self.launch(width: width, height: height, windowManager: windowManager)
        }
    }

    /// Starts the server (and the window manager) and waits until they run.
    private static func launch(width: Int, height: Int, windowManager: Bool) throws -> (server: TestProcess, name: String, manager: TestProcess?) {
        let server = TestProcess()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        // -displayfd 1: Xvfb takes the first free display number and writes it to its stdout.
        // -noreset: an X server resets when its last client leaves (xwininfo's, below), and a
        // client that connects meanwhile can be cut off: openbox, started right after, was found
        // not running twice in the tests in parallel (not reproduced alone).
        server.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-br", "-noreset"]
        let number = Pipe()
        server.standardOutput = number
        server.standardError = FileHandle.nullDevice
        try server.run()
        let line = String(decoding: number.fileHandleForReading.availableData, as: UTF8.self)
        guard let display = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            server.terminate()
            throw TestFailure("Xvfb did not start: it printed \(line.debugDescription)")
        }
        let name = ":\(display)"
        // Ready once a client is served: its root window answers (a program started before that
        // could find no display at all, where a person's desktop is always there first).
        let answers = try waitUntil(within: 10, every: 0.05) {
            try server.isRunning && runBlocking("xwininfo", ["-display", name, "-root"]).status == 0
        }
        guard answers else {
            kill(server.processIdentifier, SIGKILL)
            throw TestFailure("Xvfb on \(name) did not answer within 10 s (running: \(server.isRunning))")
        }
        guard windowManager else { return (server, name, nil) }
        let manager = TestProcess()
        manager.executableURL = URL(fileURLWithPath: "/usr/bin/openbox")
        manager.arguments = ["--sm-disable"]
        manager.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": name]) { $1 }
        manager.standardOutput = FileHandle.nullDevice
        // (What it says goes to a file: a pipe nobody reads until it fails would block it at 64 KiB.)
        let said = temporaryFolder().appendingPathComponent("openbox-\(UUID().uuidString.prefix(8)).log")
        try Data().write(to: said)
        manager.standardError = try FileHandle(forWritingTo: said)
        try manager.run()
        // Running once it has named itself on the root window (EWMH).
        let named = try waitUntil(within: 10, every: 0.05) {
            try runBlocking("xprop", ["-display", name, "-root", "_NET_SUPPORTING_WM_CHECK"]).output.contains("window id")
        }
        guard named else {
            let running = (manager: manager.isRunning, server: server.isRunning)
            for process in [manager, server] { kill(process.processIdentifier, SIGKILL) }
            let message = (try? String(contentsOf: said, encoding: .utf8)) ?? ""
            throw TestFailure("openbox did not start on \(name) within 10 s (openbox running: \(running.manager), Xvfb: \(running.server)); it said: \(message)")
        }
        return (server, name, manager)
    }

    deinit {
        for process in [windowManager, server].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
        }
    }

    /// Ends the X server at once (SIGKILL), as a crash of the desktop's would: every client's
    /// connection is cut.
    public func endServer() {
        kill(server.processIdentifier, SIGKILL)
        server.waitForExit()
    }

    /// Kills the client that owns `window`, as `xkill` does (the X server closes its connection).
    public func killClient(of window: Window) async throws {
        let killed = try await run("xkill", ["-display", name, "-id", window.id])
        guard killed.status == 0 else { throw TestFailure("xkill could not kill \(window.id): \(killed.error)") }
    }

    /// The environment a program needs to open windows here: `DISPLAY`, and no Wayland display.
    public var environment: [String: String] { ["DISPLAY": name, "WAYLAND_DISPLAY": ""] }

    /// The window titled `title`, once it is shown; nil if none is within `seconds`.
    public func window(titled title: String, within seconds: Double = 10) async throws -> Window? {
        let found = Locked<Window?>(nil)
        _ = try await poll(within: seconds, every: 0.05) { [self] in
            let window = try currentWindow(titled: title)
            found.withLock { $0 = window }
            return window != nil
        }
        return found.withLock { $0 }
    }

    /// The window titled `title` now, if there is one (`xwininfo`). Blocks: for a thread of the
    /// test's own (``poll(within:every:_:)``).
    public func currentWindow(titled title: String) throws -> Window? {
        let info = try runBlocking("xwininfo", ["-display", name, "-name", title])
        guard info.status == 0 else { return nil }
        func value(_ label: String) -> String? {
            info.output.split(separator: "\n").first { $0.contains(label) }?.split(separator: ":").last?
                .trimmingCharacters(in: .whitespaces)
        }
        let id = info.output.split(separator: "\n").first { $0.contains("Window id:") }?.split(separator: " ")
            .first { $0.hasPrefix("0x") }
        guard let id, let x = value("Absolute upper-left X").flatMap(Int.init), let y = value("Absolute upper-left Y").flatMap(Int.init),
              let width = value("Width").flatMap(Int.init), let height = value("Height").flatMap(Int.init),
              value("Map State") == "IsViewable" else { return nil }
        return Window(id: String(id), x: x, y: y, width: width, height: height)
    }

    /// What `window` shows, as 8-bit RGB, row by row (FFmpeg's x11grab). Blocks: for a thread of
    /// the test's own (``poll(within:every:_:)``: the screen is read until it shows something).
    public func screenshot(of window: Window) throws -> [UInt8] {
        let shot = temporaryFolder().appendingPathComponent("screen-\(UUID().uuidString).rgb")
        defer { try? FileManager.default.removeItem(at: shot) }
        let grab = try runBlocking("ffmpeg", ["-v", "error", "-f", "x11grab", "-video_size", "\(window.width)x\(window.height)",
                                      "-i", "\(name)+\(window.x),\(window.y)", "-frames:v", "1", "-f", "rawvideo",
                                      "-pix_fmt", "rgb24", shot.path])
        guard grab.status == 0 else { throw TestFailure("x11grab could not read \(name): \(grab.error)") }
        return Array(try Data(contentsOf: shot))
    }

    /// Sends a key to `window`, by its X name (`space`, `Right`, `Home`, `5`, `q`), with xdotool.
    /// A key that closes the window is no failure: its release then finds no window.
    public func press(_ key: String, in window: Window) async throws {
        let sent = try await run("xdotool", ["key", "--window", window.id, key], environment: sendingEnvironment)
        guard sent.status == 0 || sent.error.contains("BadWindow") else { throw TestFailure("xdotool could not send \(key): \(sent.error)") }
    }

    /// Double-clicks in the middle of `window` with xdotool.
    public func doubleClick(in window: Window) async throws {
        let sent = try await run("xdotool", ["mousemove", "--window", window.id, String(window.width / 2), String(window.height / 2),
                                       "click", "--repeat", "2", "--delay", "80", "1"], environment: sendingEnvironment)
        guard sent.status == 0 else { throw TestFailure("xdotool could not click: \(sent.error)") }
    }

    /// Asks `window` to close, as a window manager's close button does (a `WM_DELETE_WINDOW`
    /// message; python3-xlib).
    public func close(_ window: Window) async throws {
        let script = """
            import sys
            from Xlib import display, X, protocol
            d = display.Display(sys.argv[1]); w = d.create_resource_object('window', int(sys.argv[2], 16))
            protocols, delete = d.intern_atom('WM_PROTOCOLS'), d.intern_atom('WM_DELETE_WINDOW')
            w.send_event(protocol.event.ClientMessage(window=w, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0])))
            d.flush()
            """
        // Debian's own Python, which python3-xlib is installed for.
        let sent = try await run("/usr/bin/python3", ["-c", script, name, window.id])
        guard sent.status == 0 else { throw TestFailure("could not close the window: \(sent.error)") }
    }

    private var sendingEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["DISPLAY": name]) { $1 }
    }
}

/// The signal-to-noise ratio between two 8-bit pictures of the same size, in dB (infinite when
/// they are the same), as FFmpeg's `psnr` filter computes it over all components.
public func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty, "pictures of different sizes")
    var sum = 0.0
    for index in a.indices {
        let difference = Double(a[index]) - Double(b[index])
        sum += difference * difference
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}
