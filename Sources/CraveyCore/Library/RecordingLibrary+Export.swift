import Foundation

extension RecordingLibrary {
    /// The formats ``export(_:raw:tagged:exportDate:)`` writes the library's metadata in.
    package enum ExportFormat: String, Sendable, CaseIterable {
        /// RFC 4180: CRLF line ends; fields with commas, quotes or line breaks are quoted.
        case csv
        /// `{"exportDate": ..., "recordings": [...], "version": 1}`, each recording as `--json` prints it.
        case json
    }

    /// The columns of the CSV export, in order.
    package static let exportColumns = Recording.fields.map(\.key.rawValue)

    /// The library's metadata (not the media) as bytes, newest recording first.
    ///
    /// CSV is for spreadsheets: a cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading
    /// apostrophe, so a title such as `=HYPERLINK(...)` stays text (OWASP's advice on CSV
    /// injection). `raw` keeps every cell verbatim, for scripts. JSON is always verbatim.
    package func export(_ format: ExportFormat, raw: Bool = false, tagged tag: String? = nil, exportDate: Date = Date()) throws -> Data {
        let recordings = try recordings(sortedBy: .recent, tagged: tag)
        switch format {
        case .json:
            return RecordingJSON.encodeExport(recordings, exportDate: exportDate, version: 1)
        case .csv:
            return Data(Self.csv(recordings, raw: raw).utf8)
        }
    }

    /// Writes the export to a new file at `url` (mode 0600) in one step. Refused
    /// (`.invalidInput`): any place inside the library folder (its database, its clips);
    /// something already at `url` unless `replacing`; and, even then, anything there that is not
    /// a regular file (a device, a folder, a link).
    package func export(_ format: ExportFormat, raw: Bool = false, tagged tag: String? = nil, to url: URL,
                        replacing: Bool = false) throws {
        let data = try export(format, raw: raw, tagged: tag)
        try writeOutside(to: url, doing: "write the export to", replacing: replacing) { try $0.write(data) }
    }

    package static func csv(_ recordings: [Recording], raw: Bool) -> String {
        var lines = [exportColumns.joined(separator: ",")]
        for recording in recordings {
            lines.append(Recording.fields.map { csvField(raw ? $0.cell(recording) : inert($0.cell(recording))) }.joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The cell with a leading apostrophe when a spreadsheet would read it as a formula.
    package static func inert(_ value: String) -> String {
        guard let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return value }
        return "'" + value
    }

    /// Quotes a field when it holds a comma, a quote or a line break, doubling its quotes.
    ///
    /// It looks at Unicode scalars, as a CSV reader does, not at Characters: a quote followed by
    /// a combining mark (`"` U+0346) is one Character that is not `"`, so a Character-wise
    /// doubling left that quote single, and a title could end its cell and start a formula cell.
    package static func csvField(_ value: String) -> String {
        let special: Set<Unicode.Scalar> = [",", "\"", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]
        guard value.unicodeScalars.contains(where: special.contains) else { return value }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in value.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// Writes a file a person asked for outside the library (mode 0600, all at once or not at
    /// all): refused (`.invalidInput`) inside the library folder, where something is already
    /// unless `replacing`, and where anything but a regular file is even then.
    package func writeOutside(to url: URL, doing action: String, replacing: Bool, fill: (MediaFile) throws -> Void) throws {
        if let files = store.files {
            try files.writeOutside(to: url, doing: action, replacing: replacing, fill: fill)
        } else {
            try FileStorageManager.writeAtomically(to: url, doing: action, replacing: replacing, fill: fill)
        }
    }
}
