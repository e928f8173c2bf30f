import GRDB

extension CraveyError {
    /// Explains a failure of the library's SQLite database to a person; nil for other errors.
    public init?(database error: any Error) {
        guard let error = error as? DatabaseError else { return nil }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_FULL:
            self.init(.cannotWrite, "The library database cannot grow: the disk is full (\(detail)). Free some space and try again.", underlying: error)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_PERM:
            self.init(.cannotWrite, "The library database cannot be written (\(detail)). Check the library folder's permissions and free space.", underlying: error)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            self.init(.other, "The library database is damaged (\(detail)). Move library.sqlite aside; `cravey doctor --repair` can then register the clips in Recordings/ again.", underlying: error)
        default:
            self.init(.other, "The library database failed: \(detail).", underlying: error)
        }
    }
}
