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

    /// Validates lengths; longer input is an error, never cut. Blank notes become nil.
    public init(title: String? = nil, notes: String? = nil, purpose: RecordingPurpose? = nil) throws(CraveyError) {
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

    /// Parses a purpose name; the error lists the valid ones.
    public static func purpose(named name: String) throws(CraveyError) -> RecordingPurpose? {
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.isEmpty || trimmed == "none" { return nil }
        guard let purpose = RecordingPurpose(rawValue: trimmed) else {
            let valid = RecordingPurpose.allCases.map(\.rawValue).joined(separator: ", ")
            throw CraveyError(.invalidInput, "'\(name)' is not a purpose. Use one of: \(valid), or none.")
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
