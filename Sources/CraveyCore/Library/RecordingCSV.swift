import Foundation

/// The library's metadata as CSV (RFC 4180: CRLF line ends; a field with a comma, a quote or a
/// line break quoted), one row a recording with the fields `--json` prints, as
/// ``LibraryArchive/export(_:raw:tagged:exportDate:)`` writes it.
package enum RecordingCSV {
    /// The columns, in order.
    package static let columns = Recording.fields.map(\.key.rawValue)

    /// The header and one row a recording. Without `raw`, a cell a spreadsheet would read as a
    /// formula is made ``inert(_:)``.
    package static func text(_ recordings: [Recording], raw: Bool) -> String {
        var lines = [columns.joined(separator: ",")]
        for recording in recordings {
            lines.append(Recording.fields.map { field(raw ? $0.cell(recording) : inert($0.cell(recording))) }.joined(separator: ","))
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
    package static func field(_ value: String) -> String {
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
}
