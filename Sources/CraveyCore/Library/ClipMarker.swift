import Foundation

/// A moment of a clip a person marked (a key while recording or playing, `cravey markers ID
/// --add`), to the millisecond, with an optional label.
///
/// A label is held to what a title is held to: printable (no control character), at most
/// ``maxLabelLength`` characters once the spaces around it are trimmed, refused otherwise
/// (`.invalidInput`, exit 64), never cut. A clip has at most ``maxCount`` markers, one a
/// millisecond, kept in time order (``Recording/markers``).
///
/// In JSON (`--json`, the clip's copy, a backup's record) a marker is `{"at" : 12.345,
/// "label" : "chorus"}` (seconds; `label` null when there is none). The `recording` table keeps a
/// clip's markers in one column, a line each: `12.345 chorus` (``stored(_:)``).
package struct ClipMarker: Codable, Sendable, Equatable {
    package static let maxLabelLength = RecordingMetadata.maxTitleLength
    package static let maxCount = 500

    /// Where the marker is, in milliseconds from the clip's start.
    package let milliseconds: Int64
    /// The words a person gave it; nil for none.
    package let label: String?

    /// Where the marker is, in seconds from the clip's start.
    package var seconds: Double { Double(milliseconds) / 1000 }

    /// A marker `seconds` into a clip (to the nearest millisecond), its label checked
    /// (``checkedLabel(_:)``): `.invalidInput` for a label refused or a time that is no time.
    package init(at seconds: Double, label: String? = nil) throws(CraveyError) {
        guard seconds.isFinite, seconds >= 0, seconds <= Recording.Bounds.duration.upperBound else {
            throw CraveyError(.invalidInput, "A marker's time must be a time into the clip, not \(seconds).")
        }
        self.init(milliseconds: Self.milliseconds(seconds), label: try Self.checkedLabel(label))
    }

    /// A marker as stored, unchecked.
    package init(milliseconds: Int64, label: String?) {
        self.milliseconds = milliseconds
        self.label = label
    }

    /// `seconds` to the nearest millisecond.
    package static func milliseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1000).rounded())
    }

    /// `text` as a label: the spaces around it trimmed, nil when nothing is left; refused when
    /// it holds a control character (a tab, a line break, ESC) or is longer than
    /// ``maxLabelLength`` characters.
    package static func checkedLabel(_ text: String?) throws(CraveyError) -> String? {
        guard let text else { return nil }
        if let (scalar, position) = RecordingMetadata.firstControlCharacter(in: text, allowing: []) {
            throw CraveyError(.invalidInput, "The marker's label holds the control character \(RecordingMetadata.describe(scalar)) at character \(position); a label cannot hold control characters, tabs or line breaks. Remove it and try again.")
        }
        let label = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard label.count <= maxLabelLength else {
            throw CraveyError(.invalidInput, "The marker's label is \(label.count) characters long; the limit is \(maxLabelLength). Shorten it and try again.")
        }
        return label.isEmpty ? nil : label
    }

    // MARK: - A trim

    /// The markers of a clip cut to the part from `start` to `end` seconds (a trim): those
    /// inside it, both edges included, each moved back by `start`; those that were cut are gone.
    /// Computed in whole milliseconds, so a marker keeps its exact place in the sound.
    package static func kept(_ markers: [ClipMarker], from start: Double, to end: Double) -> [ClipMarker] {
        let first = milliseconds(start), last = milliseconds(end)
        return markers.compactMap { marker in
            (first...last).contains(marker.milliseconds) ? ClipMarker(milliseconds: marker.milliseconds - first, label: marker.label) : nil
        }
    }

    /// `markers` with `marker` added in its place in time; one already at its millisecond takes
    /// its label (a label given afterwards), and keeps its own when `marker` has none (a label
    /// stored before the marker that asked for it is never lost).
    package static func adding(_ marker: ClipMarker, to markers: [ClipMarker]) -> [ClipMarker] {
        let existing = markers.first { $0.milliseconds == marker.milliseconds }
        let marker = ClipMarker(milliseconds: marker.milliseconds, label: marker.label ?? existing?.label)
        var markers = markers.filter { $0.milliseconds != marker.milliseconds }
        markers.insert(marker, at: markers.firstIndex { $0.milliseconds > marker.milliseconds } ?? markers.endIndex)
        return markers
    }

    /// What a clip of `duration` seconds keeps of `markers` made while it was recorded: those
    /// within it, each millisecond once (``adding(_:to:)``), at most ``maxCount``.
    package static func kept(_ markers: [ClipMarker], within duration: Double) -> [ClipMarker] {
        let within = markers.filter { Double($0.milliseconds) / 1000 <= duration + 0.0005 }
        return Array(within.reduce(into: []) { kept, marker in kept = adding(marker, to: kept) }.prefix(maxCount))
    }

    // MARK: - The column

    /// The markers as the column keeps them: a line each, `12.345 chorus` (`12.345` without a
    /// label); "" for none.
    package static func stored(_ markers: [ClipMarker]) -> String {
        markers.map { marker in
            let time = "\(marker.milliseconds / 1000)." + String(String(marker.milliseconds % 1000 + 1000).dropFirst())
            return marker.label.map { time + " " + $0 } ?? time
        }.joined(separator: "\n")
    }

    /// The markers of a stored column (nil or "": none); a line that is not one is left out
    /// (a column edited by hand).
    package static func parse(_ stored: String?) -> [ClipMarker] {
        guard let stored, !stored.isEmpty else { return [] }
        return stored.split(separator: "\n").compactMap { line in
            let time = line.prefix { $0 != " " }
            guard time.wholeMatch(of: #/[0-9]+\.[0-9]{3}/#) != nil, let seconds = Double(time) else { return nil }
            let label = line.dropFirst(time.count + 1)
            return ClipMarker(milliseconds: milliseconds(seconds), label: label.isEmpty ? nil : String(label))
        }
    }

    // MARK: - JSON

    private enum CodingKeys: String, CodingKey {
        case at, label
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let seconds = try container.decode(Double.self, forKey: .at)
        guard seconds.isFinite, seconds >= 0, seconds <= Recording.Bounds.duration.upperBound else {
            throw DecodingError.dataCorruptedError(forKey: .at, in: container, debugDescription: "\(seconds) is not a time into a clip")
        }
        self.init(milliseconds: Self.milliseconds(seconds), label: try container.decodeIfPresent(String.self, forKey: .label))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seconds, forKey: .at)
        try container.encode(label, forKey: .label)
    }
}
