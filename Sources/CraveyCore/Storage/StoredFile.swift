import Foundation

/// A file of the library by the folder it is in and its name there: how every file is reached,
/// beneath that folder's descriptor, never by a path re-joined from strings. Its ``path``
/// (`Recordings/audio_<uuid>.m4a`) is what rows store and messages show.
package struct StoredFile: Hashable, Sendable, CustomStringConvertible {
    /// The library folder and the two folders under it.
    package enum Folder: Hashable, Sendable, CaseIterable {
        case library, recordings, thumbnails

        /// Relative to the library folder; empty for the library folder itself.
        package var path: String {
            switch self {
            case .library: ""
            case .recordings: "Recordings"
            case .thumbnails: "Recordings/Thumbnails"
            }
        }
    }

    package let folder: Folder
    package let name: String

    package init(_ folder: Folder, _ name: String) {
        self.folder = folder
        self.name = name
    }

    /// Parses a path as rows store it: `Recordings/<name>` or `Recordings/Thumbnails/<name>`,
    /// one name deep. Anything else (absolute, `..`, deeper, empty) is nil: no stored path can
    /// lead out of `Recordings/`.
    package init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 2 where parts[0] == "Recordings" && parts[1] != "Thumbnails": self.init(.recordings, parts[1])
        case 3 where parts[0] == "Recordings" && parts[1] == "Thumbnails": self.init(.thumbnails, parts[2])
        default: return nil
        }
        if ["", ".", ".."].contains(name) { return nil }
    }

    /// Relative to the library folder: `Recordings/<name>`.
    package var path: String { folder == .library ? name : folder.path + "/" + name }

    package var description: String { path }

    /// The same folder, another name.
    package func renamed(_ name: String) -> StoredFile { StoredFile(folder, name) }

    /// A name as a person reads it: bytes that are not UTF-8 as `\xNN`.
    package static func visible(_ name: [UInt8]) -> String {
        var shown = ""
        var rest = name[...]
        while !rest.isEmpty {
            var length = rest.count
            while length > 0, String(validating: rest.prefix(length), as: UTF8.self) == nil { length -= 1 }
            shown += String(decoding: rest.prefix(length), as: UTF8.self)
            rest = rest.dropFirst(length)
            if let byte = rest.first {
                shown += String(format: "\\x%02X", byte)
                rest = rest.dropFirst()
            }
        }
        return shown
    }
}
