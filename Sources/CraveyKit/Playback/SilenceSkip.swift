/// Skipping a clip's quiet stretches while it plays (`play --skip-silence`): where to jump from
/// a position, and how much was skipped. The stretches come from the clip's stored waveform
/// (``Waveform/quietSpans(minimum:)``): nothing is decoded twice.
package struct SilenceSkip: Sendable {
    /// The stretches to skip, in order, in seconds into the clip.
    package let spans: [Range<Double>]
    /// Whether it skips now (a key turns it on and off while the clip plays).
    package var isOn: Bool
    /// Seconds of the clip skipped so far.
    package private(set) var skipped = 0.0
    /// The stretch jumped over last, until a position outside it shows the jump was made.
    private var jumping: Range<Double>?

    /// A jump is made only with at least this much of a stretch left: what the sink still holds
    /// (up to half a second, all of it quiet then) goes, and a shorter rest is not worth the seek.
    package static let least = 0.6

    package init(spans: [Range<Double>], isOn: Bool) {
        (self.spans, self.isOn) = (spans, isOn)
    }

    /// Where to go from `position` (seconds into the clip, as the sink plays it): the end of the
    /// quiet stretch it is in, with at least ``least`` of it left; nil otherwise, and while a jump
    /// over that stretch is still under way.
    package mutating func target(from position: Double) -> Double? {
        if let jumping, !jumping.contains(position) { self.jumping = nil }
        guard isOn, jumping == nil, let span = spans.first(where: { $0.contains(position) }),
              span.upperBound - position >= Self.least else { return nil }
        jumping = span
        skipped += span.upperBound - position
        return span.upperBound
    }
}
