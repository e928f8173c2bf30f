import ArgumentParser
import CraveyCore
import Foundation

/// `cravey search WORDS`: the clips whose title, notes or transcript hold the words, best first.
struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find clips by their title, notes or what is said in them.",
        discussion: """
            Lists the clips whose title, notes or transcript (`cravey transcribe`) match WORDS, \
            best first: each with its id, title, the time its first match is said (for a match \
            in the transcript; `cravey play ID --from TIME` starts there) and a few words around \
            the match, marked [so]. Case and accents do not matter (cafe finds Café); crav* \
            finds every word beginning so; "my sister" in quotes is a phrase; OR, NOT and \
            NEAR(a b) combine words (SQLite FTS5's query syntax). A number from 0 to 20 finds \
            itself in digits and in words (10 finds ten, ten finds 10), as a transcript may have \
            either.

            No match prints "No clip matches ..." on stderr and exits 0 (--json prints []). A \
            query that holds no word, or that is not that syntax (a quote left open), exits 64. \
            With --json each clip is the object `cravey list --json` prints, with a "match" \
            object: field ("title", "notes" or "words"), snippet (the match between [ and ]) \
            and at (the seconds its first matched word is said, or null).
            """)

    @OptionGroup var options: LibraryOptions

    @Argument(help: "The words to look for.")
    var words: [String] = []

    @Option(help: "Show at most N clips.")
    var limit: Int?

    @Flag(help: "Print a JSON array of the clips, each with its match.")
    var json = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more, not \(limit).") }
    }

    func run() throws {
        let query = words.joined(separator: " ")
        // Through the door as the home screen's list reads it: the rows alone, best first.
        let page = try options.open().page(LibraryPage.Request(filter: query, syntax: .query, count: limit, counting: .rows))
        let found = page.rows.compactMap { recording in page.matches[recording.id].map { Found(recording: recording, match: $0) } }
        // An empty list as `list --json` prints one.
        if json { return try found.isEmpty ? Terminal.output("[]") : Terminal.printJSON(found) }
        guard !found.isEmpty else {
            return Terminal.diagnostic("No clip matches '\(Format.visible(query))'. Fewer words, or crav* for every word beginning so, find more.")
        }
        try Terminal.output(Format.table(["ID", "TITLE", "AT", "MATCH"], found.map { found in
            [Format.shortID(found.recording), Format.visible(found.recording.title),
             found.match.at.map(ClipTime.text) ?? "", Format.visible(Self.marked(found.match.snippet))]
        }))
    }

    /// A snippet with its matches between brackets.
    static func marked(_ snippet: String) -> String {
        String(decoding: snippet.utf8.map { $0 == 1 ? UInt8(ascii: "[") : $0 == 2 ? UInt8(ascii: "]") : $0 }, as: UTF8.self)
    }

    /// A clip found, as `--json` prints it: the recording's fields and its match.
    private struct Found: Encodable {
        let recording: Recording
        let match: LibraryPage.Match

        struct Match: Encodable {
            let field: String
            let snippet: String
            let at: Double?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(field, forKey: .field)
                try container.encode(snippet, forKey: .snippet)
                try container.encode(at, forKey: .at)  // null when the match is not in the words
            }

            enum CodingKeys: String, CodingKey { case field, snippet, at }
        }

        enum Key: String, CodingKey { case match }

        func encode(to encoder: any Encoder) throws {
            try recording.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(Match(field: match.field.rawValue, snippet: Search.marked(match.snippet), at: match.at), forKey: .match)
        }
    }
}
