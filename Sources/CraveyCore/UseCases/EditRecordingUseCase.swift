import Foundation

/// Changes a recording's title, notes or purpose, with the same validation as recording.
public struct EditRecordingUseCase: Sendable {
    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// What to change; nil leaves a field as it is. An empty title restores the automatic
    /// "Recording <date>" title, empty notes clear them, and a purpose of `.some(nil)` clears it.
    public struct Changes: Sendable {
        public var title: String?
        public var notes: String?
        public var purpose: RecordingPurpose??

        public init(title: String? = nil, notes: String? = nil, purpose: RecordingPurpose?? = nil) {
            self.title = title
            self.notes = notes
            self.purpose = purpose
        }
    }

    public func execute(id: UUID, changes: Changes) throws -> Recording {
        guard let current = try library.repository.fetch(id: id) else {
            throw CraveyError(.notFound, "No recording has the id \(id.uuidString.lowercased()). Run `cravey list` to see the ids.")
        }
        let validated = try RecordingMetadata(title: changes.title, notes: changes.notes,
                                              purpose: changes.purpose ?? current.purpose)
        let title = changes.title == nil ? current.title : validated.resolvedTitle(createdAt: current.createdAt)
        let notes = changes.notes == nil ? current.notes : validated.notes
        return try library.repository.updateMetadata(of: id, title: title, notes: notes, purpose: validated.purpose)
    }
}
