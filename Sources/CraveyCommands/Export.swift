import ArgumentParser
import CraveyCore
import Foundation

extension LibraryArchive.ExportFormat: ExpressibleByArgument {}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export the library's metadata (not the media) as CSV or JSON.",
        discussion: """
            CSV is meant for spreadsheets: a cell starting with =, +, -, @, tab or CR is written \
            with a leading apostrophe ('=HYPERLINK(...)), as OWASP recommends against CSV \
            injection, so no title runs as a formula; --raw writes every cell verbatim, for \
            scripts. JSON is one object: exportDate (ISO 8601), recordings (the array, newest \
            first, each recording as `cravey list --json` prints it) and version (1).

            --output writes a new file, mode 0600. Something already there is refused (exit 64) \
            unless --force, which replaces a regular file only: a folder, a link, a device or a \
            pipe is refused even then. Any place inside the library folder (its library.sqlite, \
            its clips) is refused: only cravey manages those files. To copy the clips \
            themselves, use `cravey backup`.
            """)

    @OptionGroup var options: LibraryOptions
    @Option(help: "csv (RFC 4180: a header line, then a line per recording) or json (one object: {\"exportDate\", \"recordings\": [...], \"version\": 1}).")
    var format: LibraryArchive.ExportFormat
    @Flag(help: "CSV: write cells starting with = + - @ tab or CR verbatim, without the leading apostrophe that keeps a spreadsheet from running them as formulas. For scripts.")
    var raw = false
    @Option(help: ArgumentHelp("Write to this new file (mode 0600) instead of stdout. Never a place inside the library.", valueName: "path")) var output: String?
    @Flag(help: "With --output: replace a regular file already there (never a folder, a link or a device).") var force = false
    @Option(help: "Only the recordings tagged so (`cravey tag`).", completion: Completion.tags) var tag: String?

    func run() throws {
        let library = try options.open()
        if let output {
            try library.archive.export(format, raw: raw, tagged: tag, to: URL(fileURLWithPath: output), replacing: force)
            Terminal.diagnostic("Exported to \(output).")
        } else {
            try Terminal.write(try library.archive.export(format, raw: raw, tagged: tag))
        }
    }
}
