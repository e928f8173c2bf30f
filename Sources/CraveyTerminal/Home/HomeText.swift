import CraveyCore
import Foundation

/// The home screen's pieces of text: cut, fitted and aligned to a width in columns.
enum HomeText {
    /// `text` cut in two where a word ends, the first part within `width` columns.
    static func split(_ text: String, width: Int) -> (String, String) {
        var first = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = first.isEmpty ? String(word) : first + " " + word
            guard TerminalScreen.width(of: candidate) <= width else { break }
            first = candidate
        }
        if first.isEmpty { first = String(text.prefix(width)) }
        return (first, String(text.dropFirst(first.count)).trimmingCharacters(in: .whitespaces))
    }

    /// As many of `keys` as fit in `width` columns, then "? help", joined by " · ".
    static func fitting(_ keys: [String], width: Int) -> String {
        var shown: [String] = []
        for key in keys {
            let candidate = (shown + [key, "? help"]).joined(separator: " · ")
            guard TerminalScreen.width(of: candidate) <= width else { break }
            shown.append(key)
        }
        return (shown + ["? help"]).joined(separator: " · ")
    }

    /// `labels` joined by " · " into lines of at most `width` columns, as many on a line as fit.
    static func wrapped(_ labels: [String], width: Int) -> [String] {
        var lines: [String] = []
        for label in labels {
            if let last = lines.last, TerminalScreen.width(of: last + " · " + label) <= width {
                lines[lines.count - 1] = last + " · " + label
            } else {
                lines.append(label)
            }
        }
        return lines
    }

    /// A clip's type as one character: a note for sound, a frame for video.
    static func icon(_ recording: Recording) -> String {
        recording.type == .audio ? "♪" : "▣"
    }

    /// `text` right-aligned in `width` columns.
    static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(width - TerminalScreen.width(of: text), 0)) + text
    }

    /// "Nov 22, 2026" in local time.
    static func shortDate(_ date: Date) -> String {
        shortDates.string(from: date)
    }

    private static let shortDates: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "MMM d, yyyy"
        return formatter
    }()
}
