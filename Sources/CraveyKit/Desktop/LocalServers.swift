import Foundation
import Synchronization

/// cravey opens no network connection: the sound server and the display it uses are the ones on
/// this computer, reached through local sockets. A server the environment names over the
/// network (`PULSE_SERVER=tcp:host`, `DISPLAY=localhost:10.0` as `ssh -X` sets it) is refused
/// before any socket is opened, unless ``allowsNetwork`` says otherwise (the command line's
/// `network.allow-servers` setting). The session bus refuses `tcp:` addresses itself
/// (``SessionBus``).
///
/// The sound server is named to the PulseAudio client library every time (``soundServer(_:)``),
/// so that it never chooses one of its own: left to choose, it takes the server its
/// configuration names (`default-server` in `client.conf`, or the file `PULSE_CLIENTCONFIG`
/// names), the one the X display's root window names (its `PULSE_SERVER` property), or TCP on
/// this host or the display's host (`auto-connect-localhost`, `auto-connect-display`), any of
/// which may be over the network.
///
/// A `DISPLAY` over the network is refused for sound too: the PulseAudio client library reads
/// the display's PulseAudio properties when it connects (`pa_context_new`), which would reach it.
package enum LocalServers {
    /// Whether sound servers and displays over the network may be used. False unless the
    /// program sets it, before it plays or records.
    package static let allowsNetwork = Atomic<Bool>(false)

    /// The refusal for the sound server the environment names, nil when it (and the display
    /// the sound library would read) is on this computer, or the network is allowed.
    package static func soundServerRefusal(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> CraveyError? {
        guard !allowsNetwork.load(ordering: .relaxed) else { return nil }
        if let server = environment["PULSE_SERVER"], !server.isEmpty,
           !server.split(whereSeparator: \.isWhitespace).allSatisfy({ isLocalSoundServer(String($0)) }) {
            return refusal("PULSE_SERVER", server, "a sound server")
        }
        return displayRefusal(environment)
    }

    /// The sound server to name to the PulseAudio client library (`pa_context_connect`,
    /// `pa_simple_new`): the local sockets `PULSE_SERVER` names, else the socket of this user's
    /// server where the library itself looks for it (`$PULSE_RUNTIME_PATH/native`, else
    /// `$XDG_RUNTIME_DIR/pulse/native`, else the older `<machine id>-runtime/native` in
    /// `~/.pulse` or `$XDG_CONFIG_HOME/pulse`), else the system-wide one
    /// (`/var/run/pulse/native`): the first of them that is a socket.
    ///
    /// Nil, the library's own choice, when the network is allowed. A failure when the
    /// environment names a server over the network (``soundServerRefusal(_:)``), or when no
    /// server has a socket on this computer: the error says which places were looked at.
    package static func soundServer(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<String?, CraveyError> {
        if allowsNetwork.load(ordering: .relaxed) { return .success(nil) }
        if let refusal = soundServerRefusal(environment) { return .failure(refusal) }
        if let server = environment["PULSE_SERVER"], !server.isEmpty { return .success(server) }
        let places = socketPlaces(environment)
        guard let socket = places.first(where: isSocket) else {
            return .failure(CraveyError(.unavailable, """
                No sound server is running on this computer: there is no socket at \(places.joined(separator: " nor at ")). \
                cravey connects only to a server on this computer, never to one that PulseAudio's client.conf or \
                the X display names: nothing was played or recorded.
                """, advice: .startSoundServer))
        }
        // The library reads a list of servers, separated by spaces: a space would split this one in two.
        guard !socket.contains(where: \.isWhitespace) else {
            return .failure(CraveyError(.unavailable, """
                The sound server's socket \(socket) has a space in its path, which the PulseAudio client library \
                would read as two servers: it was not used. Start the server with a runtime folder whose path has no space.
                """))
        }
        return .success("unix:" + socket)
    }

    /// Where the PulseAudio client library looks for a server's socket on this computer, in its
    /// order (`prepend_per_user` and `pa_get_runtime_dir` in its `context.c` and `core-util.c`).
    static func socketPlaces(_ environment: [String: String]) -> [String] {
        var places: [String] = []
        let variable = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let runtime = variable("PULSE_RUNTIME_PATH") {
            places.append(runtime + "/native")
        } else if let runtime = variable("XDG_RUNTIME_DIR") {
            // The library does not use a runtime folder another user owns.
            var info = stat()
            if stat(runtime, &info) != 0 || info.st_uid == getuid() { places.append(runtime + "/pulse/native") }
        } else if let machine = machineID() {
            let home = variable("HOME") ?? NSHomeDirectory()
            let configuration = variable("XDG_CONFIG_HOME") ?? home + "/.config"
            let folder = access(home + "/.pulse", F_OK) == 0 ? home + "/.pulse" : configuration + "/pulse"
            places.append("\(folder)/\(machine)-runtime/native")
        }
        return places + ["/var/run/pulse/native"]
    }

    /// Whether `path` is a socket (a link to one included: the older runtime folder is a link).
    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// The machine's id as the PulseAudio client library reads it (`pa_machine_id`): the first
    /// line of `/etc/machine-id` or `/var/lib/dbus/machine-id`, else the host's name.
    private static func machineID() -> String? {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
               let line = text.split(separator: "\n").first, !line.isEmpty { return String(line.prefix(32)) }
        }
        // gethostname, not Foundation's host name, which may ask the network's name service.
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0, name[0] != 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The refusal for the X display the environment names, nil when it is on this computer
    /// (or none is named, or the network is allowed). A Wayland display is always a local socket.
    package static func displayRefusal(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> CraveyError? {
        guard !allowsNetwork.load(ordering: .relaxed), let display = environment["DISPLAY"], !display.isEmpty,
              !isLocalDisplay(display) else { return nil }
        return refusal("DISPLAY", display, "a display")
    }

    private static func refusal(_ variable: String, _ value: String, _ what: String) -> CraveyError {
        CraveyError(.unavailable, """
            \(variable)=\(CraveyError.quoted(value, "")) names \(what) reached over the network, and cravey opens no network \
            connection: it was not used, and nothing was played or recorded.
            """, advice: .useLocalServers(variable))
    }

    /// Whether one entry of `PULSE_SERVER` is a local socket: `unix:PATH` or an absolute path,
    /// after an optional `{machine-id}`. Anything else (`tcp:`, `tcp4:`, `tcp6:`, a host name,
    /// `localhost`) is a TCP connection.
    static func isLocalSoundServer(_ entry: String) -> Bool {
        var address = Substring(entry)
        if address.hasPrefix("{"), let end = address.firstIndex(of: "}") { address = address[address.index(after: end)...] }
        return address.hasPrefix("unix:") || address.hasPrefix("/")
    }

    /// Whether an X display name (`[protocol/][host]:number[.screen]`) is reached through a
    /// local socket: no host, `unix` as the host or the protocol, or a socket's path.
    static func isLocalDisplay(_ name: String) -> Bool {
        var rest = Substring(name)
        if let slash = rest.firstIndex(of: "/"), slash != rest.startIndex {
            let transport = rest[..<slash]
            guard ["unix", "local"].contains(transport) else { return false }
            rest = rest[rest.index(after: slash)...]
        }
        if rest.hasPrefix("/") { return true }
        guard let colon = rest.lastIndex(of: ":") else { return false }
        let host = rest[..<colon]
        return host.isEmpty || host == "unix"
    }
}
