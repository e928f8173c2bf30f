import Foundation

/// The words a person gives a clip: title, notes and purpose, validated as the original app did.
public struct RecordingMetadata: Sendable, Equatable {
    /// At most this many characters, as a person counts them (Swift `Character`s).
    public static let maxTitleLength = 40
    public static let maxNotesLength = 200

    /// nil or blank: the automatic "Recording <date>" title.
    public var title: String?
    public var notes: String?
    public var purpose: RecordingPurpose?

    /// Validates lengths and characters; longer input is an error, never cut. Blank notes become nil.
    ///
    /// Whitespace around the text is trimmed; inside it, a control character (C0, DEL, C1: the
    /// ESC or BEL that would rewrite a terminal's title or colours) is refused, save the line
    /// breaks notes may hold.
    public init(title: String? = nil, notes: String? = nil, purpose: RecordingPurpose? = nil) throws(CraveyError) {
        if let title, let (scalar, position) = Self.firstControlCharacter(in: title, allowing: []) {
            throw CraveyError(.invalidInput, "The title holds the control character \(Self.describe(scalar)) at character \(position); titles cannot hold control characters, tabs or line breaks. Remove it and try again.")
        }
        if let notes, let (scalar, position) = Self.firstControlCharacter(in: notes, allowing: ["\n"]) {
            throw CraveyError(.invalidInput, "The notes hold the control character \(Self.describe(scalar)) at character \(position); notes may hold line breaks but no other control character. Remove it and try again.")
        }
        let title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        let notes = notes?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title, title.count > Self.maxTitleLength {
            throw CraveyError(.invalidInput, "The title is \(title.count) characters long; the limit is \(Self.maxTitleLength). Shorten it and try again.")
        }
        if let notes, notes.count > Self.maxNotesLength {
            throw CraveyError(.invalidInput, "The notes are \(notes.count) characters long; the limit is \(Self.maxNotesLength). Shorten them and try again.")
        }
        self.title = title?.isEmpty == true ? nil : title
        self.notes = notes?.isEmpty == true ? nil : notes
        self.purpose = purpose
    }

    /// A recording's words as they are stored, unchecked: what ``RecordingLibrary/edit(_:asked:_:)``
    /// hands its change to.
    package init(stored recording: Recording) {
        title = recording.title
        notes = recording.notes
        purpose = recording.purpose
    }

    /// The first control character (Unicode category Cc: U+0000-U+001F, U+007F-U+009F) inside the
    /// text once the whitespace around it is trimmed, and its 1-based position as a person counts
    /// characters in the text as given.
    static func firstControlCharacter(in text: String, allowing allowed: Set<Unicode.Scalar>) -> (Unicode.Scalar, Int)? {
        let isSpace = { (character: Character) in character.unicodeScalars.allSatisfy(CharacterSet.whitespacesAndNewlines.contains) }
        let characters = Array(text)
        guard let first = characters.firstIndex(where: { !isSpace($0) }),
              let last = characters.lastIndex(where: { !isSpace($0) }) else { return nil }
        for index in first...last {
            if let scalar = characters[index].unicodeScalars.first(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
                return (scalar, index + 1)
            }
        }
        return nil
    }

    /// "U+001B (ESC)": a control character's code point and its name, as `man ascii` and ECMA-48 give them.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let value = Int(scalar.value)
        let c0 = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "TAB", "LF", "VT", "FF", "CR", "SO", "SI",
                  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"]
        let c1 = ["PAD", "HOP", "BPH", "NBH", "IND", "NEL", "SSA", "ESA", "HTS", "HTJ", "VTS", "PLD", "PLU", "RI", "SS2", "SS3",
                  "DCS", "PU1", "PU2", "STS", "CCH", "MW", "SPA", "EPA", "SOS", "SGCI", "SCI", "CSI", "ST", "OSC", "PM", "APC"]
        let name: String? = value < 0x20 ? c0[value] : value == 0x7F ? "DEL" : (0x80..<0xA0).contains(value) ? c1[value - 0x80] : nil
        return String(format: "U+%04X", scalar.value) + (name.map { " (\($0))" } ?? "")
    }

    /// Parses a purpose name; the error lists the valid ones.
    public static func purpose(named name: String) throws(CraveyError) -> RecordingPurpose? {
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.isEmpty || trimmed == "none" { return nil }
        guard let purpose = RecordingPurpose(rawValue: trimmed) else {
            let valid = RecordingPurpose.allCases.map(\.rawValue).joined(separator: ", ")
            throw CraveyError(.invalidInput, "\(CraveyError.quoted(name)) is not a purpose. Use one of: \(valid), or none.")
        }
        return purpose
    }

    /// The title to store: the given one, or "Recording Nov 22, 2026 3:42 PM" from the creation time.
    public func resolvedTitle(createdAt: Date, timeZone: TimeZone = .current) -> String {
        title ?? Self.automaticTitle(for: createdAt, timeZone: timeZone)
    }

    public static func automaticTitle(for date: Date, timeZone: TimeZone = .current) -> String {
        "Recording " + displayDate(date, timeZone: timeZone)
    }

    /// "0:07", "12:30", "1:02:03": how lists and reports show a length.
    package static func displayDuration(_ seconds: Double) -> String {
        guard seconds.isFinite, Recording.Bounds.duration.contains(seconds) else { return "-:--" }
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// "Nov 22, 2026 3:42 PM": how titles and lists show a date, in English whatever the locale,
    /// as the original app did. Uses `strftime`, which keeps ICU's locale data out of memory.
    public static func displayDate(_ date: Date, timeZone: TimeZone = .current) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        seconds += time_t(timeZone.secondsFromGMT(for: date))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%b %-d, %Y %-I:%M %p", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
