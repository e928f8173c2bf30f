import ArgumentParser
import CraveyCore

struct DeleteAll: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete every recording, file and thumbnail in the library.",
        discussion: """
            Asks first (--yes when stdin is not a terminal). It also clears the deleted titles \
            and notes out of the database file (SQLite secure_delete and a WAL checkpoint). A \
            delete-all killed half-way (a power cut, `kill -9`) is finished by the next command, \
            whichever it is: a clip you deleted never comes back, not even as a "Recovered" one. \
            A file in Recordings/ that cravey did not make is left where it is, and named.
            """)

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Do not ask for confirmation (needed when stdin is not a terminal).") var yes = false
    @Flag(help: "Print what was deleted as JSON.") var json = false

    func run() throws {
        let library = try options.open()
        let count = try library.count()
        guard try Terminal.confirm("Delete all \(count) recordings? This cannot be undone.", yes: yes) else { return }
        let summary = try library.storage.deleteAll()
        if json { return try Terminal.printJSON(summary) }
        Terminal.diagnostic("Deleted \(summary.recordings) recordings (\(summary.files) files, \(ByteCount.text(summary.bytes))).")
        if !summary.untouched.isEmpty {
            Terminal.diagnostic("Left \(summary.untouched.count) file\(summary.untouched.count == 1 ? "" : "s") cravey did not make, where \(summary.untouched.count == 1 ? "it is" : "they are"): "
                                + summary.untouched.map(Format.visible).joined(separator: ", ") + ". Move them out of the library folder, or add one with `cravey import FILE`.")
        }
    }
}
