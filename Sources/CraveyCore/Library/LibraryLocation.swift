import Foundation

/// Where the library folder is: `--library PATH`, else `$CRAVEY_LIBRARY`, else
/// `$XDG_DATA_HOME/cravey` (`~/.local/share/cravey`).
package enum LibraryLocation {
    package static func resolve(explicit: String?,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit, !explicit.isEmpty { return URL(fileURLWithPath: explicit).standardizedFileURL }
        if let path = environment["CRAVEY_LIBRARY"], !path.isEmpty {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("cravey").standardizedFileURL
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/cravey").standardizedFileURL
    }
}
