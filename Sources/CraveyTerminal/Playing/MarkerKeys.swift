import CraveyKit

/// A play's markers on a terminal, as keys reach them: `m` marks the moment playing, and the
/// label is typed after it (Enter keeps it, Escape leaves the marker without one); `.` and `,`
/// go to the next and the previous marker (`,` before the first goes to the start). A value: keys in, what to do out, tested without a
/// terminal; the player line (``Player``) and the home screen carry out what it says.
///
/// The terminal's key reader gives a paste as nothing (text, never keys) and only ASCII
/// characters: a label typed here is ASCII; `cravey markers ID --add TIME --label L` takes any.
package struct MarkerKeys: Sendable, Equatable {
    /// `,` within this much after a marker goes to the one before it (as a player's "previous
    /// track" does), and `.` goes past one within a third of it after the position.
    static let nearby: Int64 = 1500

    /// The clip's markers as this play knows them, in time order.
    package private(set) var markers: [ClipMarker]
    /// The marker whose label is being typed, and the label so far; nil when none is.
    package private(set) var labelling: (marker: ClipMarker, text: String)?
    /// What went wrong storing the last marker, for the line; nil when it was stored.
    package var problem: String?

    /// What a key asks for.
    package enum Effect: Sendable, Equatable {
        /// Nothing: the key was the label's, or had nothing to do.
        case nothing
        /// Store this marker (one already at its millisecond takes its label).
        case store(ClipMarker)
        /// Go to this point of the clip, in seconds.
        case seek(Double)
        /// Not a marker's key: the screen's own.
        case notMine
    }

    package init(_ markers: [ClipMarker]) {
        self.markers = markers
    }

    /// What `key`, pressed `position` seconds into the clip, does: the label's while one is
    /// typed, else what the key table says it does (`action`: ``KeyAction/mark`` and
    /// ``KeyAction/jumpMarker(forward:)`` are the markers').
    mutating func handle(_ key: Key, _ action: KeyAction?, at position: Double) -> Effect {
        if case let (marker, text)? = labelling { return label(marker, text, key) }
        let here = ClipMarker.milliseconds(max(position, 0))
        switch action {
        case .mark?:
            let marker = ClipMarker(milliseconds: here, label: nil)
            markers = ClipMarker.adding(marker, to: markers)
            labelling = (marker, "")
            return .store(marker)
        case .jumpMarker(forward: true)?:
            return markers.first { $0.milliseconds > here + Self.nearby / 3 }.map { Effect.seek($0.seconds) } ?? .nothing
        case .jumpMarker(forward: false)?:
            return markers.last { $0.milliseconds < here - Self.nearby }.map { Effect.seek($0.seconds) } ?? .seek(0)
        default:
            return .notMine
        }
    }

    /// A key while a label is typed: a printable character adds to it (up to a title's length),
    /// Backspace takes the last away, Enter stores the marker with it, Escape leaves it without.
    private mutating func label(_ marker: ClipMarker, _ text: String, _ key: Key) -> Effect {
        switch key {
        case .enter:
            labelling = nil
            guard let label = try? ClipMarker.checkedLabel(text) else { return .nothing }
            let labelled = ClipMarker(milliseconds: marker.milliseconds, label: label)
            markers = ClipMarker.adding(labelled, to: markers)
            return .store(labelled)
        case .escape:
            labelling = nil
        case .backspace:
            labelling = (marker, String(text.dropLast()))
        case .character(let character) where !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }):
            if text.count < ClipMarker.maxLabelLength { labelling = (marker, text + String(character)) }
        default:
            break
        }
        return .nothing
    }

    /// The markers, with the label being typed (if any) kept as typed: what a recording stopped
    /// meanwhile keeps.
    package var finished: [ClipMarker] {
        guard case let (marker, text)? = labelling, let label = try? ClipMarker.checkedLabel(text) else { return markers }
        return ClipMarker.adding(ClipMarker(milliseconds: marker.milliseconds, label: label), to: markers)
    }

    /// Adds pasted `text` to the label being typed: a paste is text, never keys. False when no
    /// label is typed, or the text holds a line break or a control character, or makes the
    /// label longer than a title (then nothing is added: a label is never cut).
    package mutating func paste(_ text: String) -> Bool {
        guard case let (marker, typed)? = labelling, (try? ClipMarker.checkedLabel(typed + text)) != nil,
              (typed + text).count <= ClipMarker.maxLabelLength else { return false }
        labelling = (marker, typed + text)
        return true
    }

    /// What the line says while a label is typed: "◆ 0:12 label: words▏", the label's last
    /// ``shownLabel`` characters, so that the line stays within 80 columns.
    package var prompt: String? {
        labelling.map { "◆ \(Format.duration($0.marker.seconds)) label: \($0.text.count > Self.shownLabel ? "…" : "")\(String($0.text.suffix(Self.shownLabel)))▏" }
    }

    /// How much of a label being typed the line shows: its end.
    static let shownLabel = 16

    package static func == (lhs: MarkerKeys, rhs: MarkerKeys) -> Bool {
        lhs.markers == rhs.markers && lhs.problem == rhs.problem && lhs.labelling?.marker == rhs.labelling?.marker && lhs.labelling?.text == rhs.labelling?.text
    }
}
