import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyCore

/// The export read back by a real CSV parser (Python's csv module, not ours) and as JSON.
extension LibraryTests {
    @Test("export round-trips titles with commas, quotes, newlines and emoji through a real CSV parser and JSON")
    func exportRoundTrip() async throws {
        let titles = ["Don't Do It", "a, b, c", "She said \"no\"", "line one", "💪🏽 strong 👨‍👩‍👧", "=1+1", " spaced "]
        let library = try await Fixture.library(titles: titles)
        // A title with a line break can no longer be typed; an older row may still hold one.
        let multiline = try #require(try library.recordings().first { $0.title == "line one" })
        _ = try library.storeWords(of: multiline.id, title: "line one\nline two", notes: nil, purpose: nil)
        try library.countPlay(of: library.recordings()[0].id, secondsListened: 2, completed: true)
        let export = library.archive
        let recordings = try library.recordings()
        #expect(recordings.contains { $0.title == "line one\nline two" })

        let rows = try await parseCSV(try export.export(.csv))
        // For a spreadsheet, a cell that would start a formula starts with an apostrophe (OWASP).
        #expect(rows.map { $0["title"] } == recordings.map { $0.title == "=1+1" ? "'=1+1" : $0.title })
        // --raw: every title back verbatim.
        await #expect(try parseCSV(try export.export(.csv, raw: true)).map { $0["title"] } == recordings.map(\.title))
        #expect(rows.map { $0["id"] } == recordings.map { $0.id.description })
        #expect(Set(rows[0].keys) == Set(RecordingCSV.columns))
        #expect(rows[0]["playCount"] == "1" && rows[1]["purpose"] == "")

        let json = try export.export(.json)
        let document = try Recording.jsonDecoder().decode(ExportDocument.self, from: json)
        #expect(document.version == 1)
        #expect(document.recordings.map(\.title) == recordings.map(\.title))
        #expect(document.recordings.map(\.id) == recordings.map(\.id))
        #expect(document.recordings[0].playCount == 1)
    }

    @Test("CSV cells starting with = + - @ tab or CR get a leading apostrophe, in every text column; raw keeps them")
    func exportFormulaInjection() async throws {
        let formulas = ["=HYPERLINK(\"http://x\",\"click\")", "+1", "-2+3", "@SUM(A1)"]
        let library = try await Fixture.library(titles: formulas + ["safe 'quote", "a=b"])
        let hostile = try #require(try library.recordings().first { $0.title == "safe 'quote" })
        // Older rows may hold what can no longer be typed: a leading tab or CR.
        _ = try library.storeWords(of: hostile.id, title: "\tTAB", notes: "\r=1+2", purpose: nil)
        let export = library.archive

        let rows = try await parseCSV(try export.export(.csv))
        let titles = Set(rows.compactMap { $0["title"] })
        #expect(titles == Set(formulas.map { "'" + $0 } + ["'\tTAB", "a=b"]))
        #expect(rows.first { $0["title"] == "'\tTAB" }?["notes"] == "'\r=1+2")
        #expect(rows.allSatisfy { $0["playCount"] == "0" && $0["notes"] != nil })

        let raw = try await parseCSV(try export.export(.csv, raw: true))
        #expect(Set(raw.compactMap { $0["title"] }) == Set(formulas + ["\tTAB", "a=b"]))
        #expect(raw.first { $0["title"] == "\tTAB" }?["notes"] == "\r=1+2")
    }

    @Test("a quote followed by a combining mark is still doubled: a title cannot end its CSV cell early and start a formula cell (a fuzz finding)")
    func exportQuoteWithCombiningMark() async throws {
        // Given: titles whose quote and the combining mark after it make one Character, "͆
        let titles = ["Breathe\"\u{346},=HYPERLINK(\"http://x\")", "\"\u{301}", "a\u{300}\"\u{346} b"]
        let library = try await Fixture.library(titles: titles)
        for raw in [false, true] {
            // When: exported as CSV
            let rows = try await parseCSV(try library.archive.export(.csv, raw: raw))
            // Then: every title is one cell, read back as stored, and no cell is a formula
            #expect(Set(rows.compactMap { $0["title"] }) == Set(titles), "\(rows)")
            #expect(rows.allSatisfy { $0.count == RecordingCSV.columns.count }, "\(rows)")
        }
    }
}

/// Rows of a CSV export as Python's csv module reads them (a real CSV parser, not ours).
func parseCSV(_ csv: Data) async throws -> [[String: String]] {
    let parsed = try await run("python3", ["-c", """
        import csv, io, json, sys
        rows = list(csv.DictReader(io.StringIO(sys.stdin.buffer.read().decode('utf-8'), newline='')))
        print(json.dumps(rows))
        """], input: csv)
    #expect(parsed.status == 0, "\(parsed.error)")
    return try JSONDecoder().decode([[String: String]].self, from: Data(parsed.output.utf8))
}

/// The JSON export's shape, as a program reading it would declare it.
private struct ExportDocument: Decodable {
    var version: Int
    var exportDate: Date
    var recordings: [Recording]
}
