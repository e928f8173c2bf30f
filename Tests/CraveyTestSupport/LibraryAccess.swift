import CraveyKit
import Foundation
import Testing

/// Where the tests look into a library's folder and rows directly, beside its door: paths to
/// check with the real file system, and rows written as a hand-edited or older library has them.
extension RecordingLibrary {
    /// `Recordings/`.
    package var recordingsURL: URL { url.appendingPathComponent("Recordings", isDirectory: true) }
    /// `Recordings/Thumbnails/`.
    package var thumbnailsURL: URL { url.appendingPathComponent("Recordings/Thumbnails", isDirectory: true) }

    /// Where a path relative to the library is, as rows store it.
    package func fileURL(_ relativePath: String) -> URL {
        URL(fileURLWithPath: url.path + "/" + relativePath)
    }

    /// Where a file of the library is.
    package func fileURL(_ file: StoredFile) -> URL {
        fileURL(file.path)
    }

    /// Inserts `recording` as it is, in a transaction of the library's store (its copy written).
    package func insert(_ recording: Recording, plays: [PlayEvent] = []) throws {
        try store.write { tx in try tx.repository.insert(recording, plays: plays) }
    }

    /// Writes a row's words as they are, unchecked (as an older cravey may have stored them).
    @discardableResult
    package func storeWords(of id: RecordingID, title: String, notes: String? = nil, purpose: RecordingPurpose? = nil) throws -> Recording {
        try store.write { tx in try tx.repository.updateWords(of: id, title: title, notes: notes, purpose: purpose) }
    }

    /// Counts a play of clip `id` at `date`, as the door's `countPlay(of:secondsListened:completed:)`
    /// counts one now: for a test that needs plays at known times.
    @discardableResult
    package func countPlay(of id: RecordingID, secondsListened: Double, completed: Bool, at date: Date = Date()) throws -> Recording {
        try store.write { tx in try tx.repository.recordPlay(of: id, secondsListened: secondsListened, completed: completed, at: date) }
    }
}

/// A clip a search found: the recording, and where its best match is ("title", "notes" or "words").
package struct Found: Sendable {
    package var recording: Recording
    package var field: String
    package var snippet: String
    package var at: Double?
}

extension RecordingLibrary {
    /// What `query` finds, best first, at most `limit`, read as `cravey search` reads it through
    /// the door (``page(_:)``: a search's rows alone, each with its match).
    package func search(_ query: String, limit: Int? = nil) throws -> [Found] {
        let page = try page(LibraryPage.Request(filter: query, syntax: .query, count: limit, counting: .rows))
        return page.rows.map { recording in
            let match = page.matches[recording.id]
            return Found(recording: recording, field: match?.field.rawValue ?? "", snippet: match?.snippet ?? "", at: match?.at)
        }
    }
}

extension RecordingLibrary {
    /// Sends and merges on every library of one sync folder until none has anything new to
    /// merge: where they should all hold the same.
    package static func settle(_ libraries: [RecordingLibrary]) throws {
        for _ in 0..<6 {
            var merged = 0
            for library in libraries {
                try library.sync.send()
                merged += try library.sync.merge().files
            }
            if merged == 0 { return }
        }
        Issue.record("the libraries kept merging new changes: they do not settle")
    }
}
