import Foundation

/// Lists the library's recordings in one of the orders the CLI offers.
public struct FetchRecordingsUseCase: Sendable {
    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    public func execute(sortedBy sort: RecordingSort = .recent) throws -> [Recording] {
        try library.repository.fetchAll(sortedBy: sort)
    }

    /// Quick Play: the 3 most played, ties broken by last played, then newest.
    public func quickPlay() throws -> [Recording] {
        try library.repository.quickPlay()
    }

    /// The one recording whose id starts with `prefix`.
    public func execute(idPrefix prefix: String) throws -> Recording {
        try library.repository.fetch(idPrefix: prefix)
    }
}
