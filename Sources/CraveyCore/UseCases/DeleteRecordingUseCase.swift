import Foundation

/// Deletes one recording, atomically for the person: either the row, the media file and the
/// thumbnail are all gone, or nothing changed.
///
/// Order: rename the files to `.deleting-` names (reversible), delete the row (the commit
/// point), unlink the files. A failure before the commit point renames the files back; a failed
/// unlink puts the row back too. A crash in between leaves `.deleting-` files that `doctor`
/// sees: with the row still there it restores them, with the row gone it finishes the deletion.
public struct DeleteRecordingUseCase: Sendable {
    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// Runs under the library lock, so no other process sees the files half-renamed.
    @discardableResult
    public func execute(id: UUID) throws -> Recording {
        try library.exclusively { try delete(id: id) }
    }

    private func delete(id: UUID) throws -> Recording {
        let storage = library.storage
        guard let recording = try library.repository.fetch(id: id) else {
            throw CraveyError(.notFound, "No recording has the id \(id.uuidString.lowercased()). Run `cravey list` to see the ids.")
        }
        var marked: [URL] = []
        let deleted: (Recording, [PlayEvent])?
        do {
            for path in [recording.filePath, recording.thumbnailPath].compactMap({ $0 }) {
                if let url = try storage.markForDeletion(path) { marked.append(url) }
            }
            deleted = try library.repository.delete(id: id)
        } catch {
            marked.forEach(storage.unmark)
            throw error
        }
        do {
            for url in marked { try storage.remove(url) }
        } catch {
            if let deleted { try library.repository.restore([deleted]) }
            marked.forEach(storage.unmark)
            throw error
        }
        return recording
    }
}
