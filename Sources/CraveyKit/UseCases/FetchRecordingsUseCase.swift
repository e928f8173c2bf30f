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
}
