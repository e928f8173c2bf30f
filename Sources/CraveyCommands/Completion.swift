import ArgumentParser
import CraveyCore
import Foundation

/// What the shells' completion offers for values only a library or the sound server knows: the
/// recordings' ids (with their titles where the shell shows descriptions: zsh, fish), the sound
/// server's sources and sinks, and the cameras. ArgumentParser's completion scripts call
/// `cravey ---completion ...`, which runs these; they print nothing rather than fail.
enum Completion {
    /// The recordings of the library the command line names (`--library`), newest first.
    static let recordingIDs = CompletionKind.custom { words, _, _ in
        guard let recordings = try? library(named: words)?.recordings(sortedBy: .recent) else { return [] }
        return recordings.map { recording in
            let id = recording.id.description.prefix(8)
            let title = recording.title.filter { !$0.isNewline && $0 != "\t" }
            switch CompletionShell.requesting {
            case .zsh?: return "\(id):\(title.replacingOccurrences(of: ":", with: "\\:"))"
            case .fish?: return "\(id)\t\(title)"
            default: return String(id)
            }
        }
    }

    static let purposes = CompletionKind.list(RecordingPurpose.allCases.map(\.rawValue))

    /// The tags the library the command line names (`--library`) uses.
    static let tags = CompletionKind.custom { words, _, _ in
        (try? library(named: words)?.tags()) ?? []
    }

    /// What `cravey tag ID` takes: `+tag` for a tag in use (adding it to another clip) and `-tag`.
    static let tagChanges = CompletionKind.custom { words, _, _ in
        let tags = (try? library(named: words)?.tags()) ?? []
        return tags.map { "+" + $0 } + tags.map { "-" + $0 }
    }

    /// The library the command line being completed names (`--library`, else the default one),
    /// when there is one; never made.
    private static func library(named words: [String]) -> RecordingLibrary? {
        let explicit = words.indices.dropLast().last { words[$0] == "--library" }.map { words[$0 + 1] }
        return try? RecordingLibrary(at: LibraryLocation.resolve(explicit: explicit), creating: false)
    }

    /// The sound server's sources (`kind` "source"), sinks ("sink") or cameras ("camera"), as
    /// `cravey-media devices --json` lists them; the cameras also `test`.
    static func devices(_ kind: String) -> CompletionKind {
        .custom { _, _, _ in
            // On the thread parsing the command line (`cravey`'s main thread, not a task's).
            guard let lister = try? ChildProcess(CommandRoute.mediaExecutable, ["devices", "--json"], input: .null, output: .pipe, errors: .null) else {
                return []
            }
            let data = lister.outputToEnd()
            _ = lister.wait()
            let rows = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] ?? []
            let names = rows.filter { $0["kind"] as? String == kind }.compactMap { $0["name"] as? String }
            return kind == "camera" ? names + ["test"] : names
        }
    }
}
