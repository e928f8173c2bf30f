import Foundation

/// Syncthing devices on this machine carrying one folder between them, as between a person's
/// machines (NOTES-media's recipe): each a real `syncthing` with a home of its own, listening on
/// 127.0.0.1 only, each device dialling the ones made before it; discovery, relays, NAT traversal,
/// usage reports, crash reports and upgrades off, so nothing leaves the machine. The folder
/// is watched (changes sent about a second after they are made), and a device that found its
/// peer not listening yet tries again a second later (Syncthing's default: a minute).
public final class SyncthingDevices: Sendable {
    /// Each device's copy of the folder, in the order the devices were made.
    public let folders: [URL]
    /// Each device's log (what `syncthing serve` prints).
    public let logs: [URL]
    private let servers: [TestProcess]

    /// Starts `count` devices sharing one folder, and waits until each is connected to every
    /// other (at most 60 s). Off the cooperative pool: making a device's keys and waiting for
    /// its log block.
    public init(count: Int = 2) async throws {
        let root = temporaryFolder().appendingPathComponent("syncthing-\(UUID().uuidString.prefix(8))")
        let homes = (0..<count).map { root.appendingPathComponent("home-\($0)") }
        folders = (0..<count).map { root.appendingPathComponent("folder-\($0)") }
        logs = (0..<count).map { root.appendingPathComponent("device-\($0).log") }
        servers = try await offPool { [folders, logs] in try Self.start(homes: homes, folders: folders, logs: logs) }
        let connected = try await poll(within: 60, every: 0.1) { [logs] in
            logs.allSatisfy { log in
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                return text.components(separatedBy: "Established secure connection").count - 1 >= count - 1
                    && text.contains("Completed initial scan")
            }
        }
        guard connected else {
            servers.forEach { kill($0.processIdentifier, SIGKILL) }
            let said = logs.map { (try? String(contentsOf: $0, encoding: .utf8))?.suffix(2_000) ?? "" }
            throw TestFailure("the Syncthing devices did not connect within 60 s:\n\(said.joined(separator: "\n---\n"))")
        }
    }

    // Not waited for: the last reference is often dropped on the cooperative pool, and each
    // process's own thread reaps it (``TestProcess``).
    deinit { servers.forEach { kill($0.processIdentifier, SIGKILL) } }

    /// Makes each device's keys (`syncthing generate`), writes its configuration and starts it.
    private static func start(homes: [URL], folders: [URL], logs: [URL]) throws -> [TestProcess] {
        let environment = ProcessInfo.processInfo.environment.merging(
            ["STNODEFAULTFOLDER": "1", "STNOUPGRADE": "1", "STNORESTART": "1"]) { $1 }
        var ids: [String] = []
        for (home, folder) in zip(homes, folders) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let made = try runBlocking("syncthing", ["generate", "--home=\(home.path)", "--no-default-folder"], environment: environment)
            guard made.status == 0 else { throw TestFailure("syncthing generate failed: \(made.error)") }
            let id = try runBlocking("syncthing", ["--home=\(home.path)", "--device-id"], environment: environment)
            ids.append(id.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let ports = try homes.map { _ in try freePort() }
        var servers: [TestProcess] = []
        for index in homes.indices {
            // Only the later device dials: two that dial each other at once can both connect,
            // close one, and wait out a 20 s Hello timeout on the other (seen here: 41 s).
            let peers = zip(ids, ports).enumerated().map { peer, entry in
                let address = peer < index ? "tcp://127.0.0.1:\(entry.1)" : "dynamic"
                return "  <device id=\"\(entry.0)\" name=\"device-\(peer)\"><address>\(address)</address></device>"
            }
            let configuration = """
                <configuration version="36">
                  <folder id="cravey-sync" label="cravey" path="\(folders[index].path)" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1">
                \(ids.map { "    <device id=\"\($0)\"></device>" }.joined(separator: "\n"))
                  </folder>
                \(peers.joined(separator: "\n"))
                  <gui enabled="false"></gui>
                  <options>
                    <listenAddress>tcp://127.0.0.1:\(ports[index])</listenAddress>
                    <globalAnnounceEnabled>false</globalAnnounceEnabled>
                    <localAnnounceEnabled>false</localAnnounceEnabled>
                    <relaysEnabled>false</relaysEnabled>
                    <natEnabled>false</natEnabled>
                    <urAccepted>-1</urAccepted>
                    <crashReportingEnabled>false</crashReportingEnabled>
                    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                    <startBrowser>false</startBrowser>
                    <reconnectionIntervalS>1</reconnectionIntervalS>
                  </options>
                </configuration>
                """
            try Data(configuration.utf8).write(to: homes[index].appendingPathComponent("config.xml"))
            let server = TestProcess()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/syncthing")
            server.arguments = ["serve", "--home=\(homes[index].path)", "--no-browser", "--no-restart", "--no-upgrade"]
            server.environment = environment
            _ = FileManager.default.createFile(atPath: logs[index].path, contents: nil)
            let log = try FileHandle(forWritingTo: logs[index])
            (server.standardOutput, server.standardError) = (log, log)
            try server.run()
            try log.close()
            servers.append(server)
        }
        return servers
    }

    /// A TCP port of the loopback address nothing listens on now (the kernel's choice for port 0).
    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestFailure("no socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw TestFailure("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
