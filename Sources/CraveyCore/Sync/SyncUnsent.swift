import Foundation

/// Who is told when a change's send after its commit fails (``LibrarySync/whenUnsent(_:)``): a
/// command says it on stderr, the home screen in its header. The change is kept in the outbox
/// either way, and the next send (`cravey sync`, the next change) sends it.
package final class SyncUnsent: Sendable {
    private let listener = Locked<(@Sendable (URL, CraveyError) -> Void)?>(nil)

    init() {}

    /// Tells `tell` from now on, in place of whoever was told before.
    func listen(_ tell: @escaping @Sendable (URL, CraveyError) -> Void) {
        listener.withLock { $0 = tell }
    }

    /// Tells the listener, if any, that the send into `folder` failed with `error`.
    func failed(_ folder: URL, _ error: any Error) {
        let error = error as? CraveyError
            ?? CraveyError(.cannotWrite, "Cannot write into the sync folder \(folder.path): \(error).", underlying: error)
        listener.withLock { $0 }?(folder, error)
    }
}
