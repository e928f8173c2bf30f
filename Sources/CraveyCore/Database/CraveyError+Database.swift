import GRDB

extension CraveyError {
    /// A failure of the library's SQLite database, with its SQLite code; nil for other errors.
    package init?(database error: any Error) {
        guard let error = error as? DatabaseError else { return nil }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_FULL:
            self.init(.cannotWrite, "The library database cannot grow: the disk is full (\(detail)).", advice: .freeSpace, underlying: error)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_PERM:
            self.init(.cannotWrite, "The library database cannot be written (\(detail)).", advice: .chooseLibrary, underlying: error)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            self.init(.other, "The library database is damaged (\(detail)).", advice: .moveDamagedDatabase(AppDatabase.fileName), underlying: error)
        default:
            self.init(.other, "The library database failed: \(detail).", underlying: error)
        }
    }
}
