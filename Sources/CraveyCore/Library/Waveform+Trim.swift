import Foundation

/// The part of a clip worth keeping as its stored waveform shows it: from a little before its
/// first sound to a little after its last, the fumble for the key and the reach for it cut away.
/// What `trim --auto` proposes, read from the peaks alone, without decoding the clip.
package struct TrimProposal: Sendable, Equatable, Codable {
    /// Where the kept part starts and ends, in seconds into the clip.
    package var start: Double
    package var end: Double
    /// The clip's own noise floor: the level (dBFS, of its 10 ms peaks) that a tenth of the clip
    /// stays under.
    package var noiseFloor: Double
    /// The level (dBFS) a peak must reach to be sound (``Waveform/threshold(floor:loudest:)``):
    /// ``Waveform/thresholdAboveFloor`` above the floor, never below
    /// ``Waveform/lowestThreshold``, and at most halfway from the floor to the loudest peak.
    package var threshold: Double

    package init(start: Double, end: Double, noiseFloor: Double, threshold: Double) {
        self.start = start
        self.end = end
        self.noiseFloor = noiseFloor
        self.threshold = threshold
    }

    /// Whether the proposal keeps the whole clip of `duration` seconds (nothing to cut).
    package func keepsAll(of duration: Double) -> Bool {
        start <= 0.005 && end >= duration - 0.005
    }
}

extension Waveform {
    /// The margin kept before the first sound and after the last: 150 ms, a breath's onset.
    package static let trimMargin = 0.15
    /// How far above the clip's noise floor a peak is sound: 12 dB (a fan or traffic peaks a few dB
    /// around its floor; a voice stands well above it).
    package static let thresholdAboveFloor = 12.0
    /// The threshold never goes below -70 dBFS: what is quieter is silence whatever the floor (a
    /// digitally silent lead-in has no floor to speak of).
    package static let lowestThreshold = -70.0
    /// A clip with nothing ``standingOut`` of its floor has its threshold this far under its
    /// loudest peak: all of it is sound.
    package static let thresholdBelowLoudest = 20.0
    /// A clip whose loudest peak is less than 6 dB over its floor has nothing standing out of
    /// its noise (a steady noise's own 10 ms peaks spread about that much): it is kept whole.
    package static let standingOut = 6.0
    /// A sound is 50 ms of peaks above the threshold within 100 ms: a lone click (a key, a tap
    /// on the microphone, under 50 ms) is not taken for the first or last sound.
    package static let soundWindow = 10
    package static let soundPeaks = 5

    /// What ``TrimProposal`` to make of this waveform for a clip of `duration` seconds: from
    /// ``trimMargin`` before its first sound to ``trimMargin`` after its last, within the clip.
    /// Nil when no sound reaches the threshold (a silent clip: nothing to keep).
    ///
    /// Linear in the peaks (one pass for a histogram of their magnitudes, one from each end),
    /// so an hour of peaks (360,000) takes milliseconds.
    package func proposedTrim(duration: Double) -> TrimProposal? {
        guard let (floor, threshold, loud) = loudPeaks(),
              let first = soundStart(loud, reversed: false), let last = soundStart(loud, reversed: true) else { return nil }
        let seconds = Double(samplesPerPeak) / Double(sampleRate)
        let start = max(Double(first) * seconds - Self.trimMargin, 0)
        let end = min(Double(last + 1) * seconds + Self.trimMargin, duration)
        guard end > start else { return nil }
        return TrimProposal(start: start, end: end, noiseFloor: floor, threshold: threshold)
    }

    /// The margin kept at each end of a quiet stretch that `play --skip-silence` skips: 250 ms,
    /// so a word's fall and the next one's onset are heard.
    package static let skipMargin = 0.25

    /// The stretches a player may skip (`play --skip-silence`): runs of peaks under the clip's
    /// sound threshold (``threshold(floor:loudest:)``, as `trim --auto` finds it) at least
    /// `minimum` seconds long, each less ``skipMargin`` at both ends; in seconds into the clip,
    /// in order. None for a clip with nothing standing out of its noise (all of it is sound), or
    /// without peaks. Linear in the peaks, read from the stored waveform: no decoding.
    package func quietSpans(minimum: Double = 1) -> [Range<Double>] {
        guard let (_, _, loud) = loudPeaks() else { return [] }
        let seconds = Double(samplesPerPeak) / Double(sampleRate)
        var spans: [Range<Double>] = []
        var start: Int?
        for index in 0...loud.count {
            let quiet = index < loud.count && !loud[index]
            if quiet, start == nil { start = index }
            guard !quiet, let first = start else { continue }
            start = nil
            let lower = Double(first) * seconds + Self.skipMargin, upper = Double(index) * seconds - Self.skipMargin
            if Double(index - first) * seconds >= minimum, upper > lower { spans.append(lower..<upper) }
        }
        return spans
    }

    /// The clip's noise floor (dBFS), the threshold a peak must reach to be sound, and which
    /// peaks reach it; nil when none does (a silent clip) or there are no peaks.
    private func loudPeaks() -> (floor: Double, threshold: Double, loud: [Bool])? {
        guard !peaks.isEmpty else { return nil }
        // The floor: the magnitude a tenth of the peaks stay under, from a histogram (no sort).
        var histogram = [Int](repeating: 0, count: 32769)
        var loudest = 0
        for peak in peaks {
            let magnitude = peak.magnitude
            histogram[magnitude] += 1
            loudest = max(loudest, magnitude)
        }
        var counted = 0, floorMagnitude = 0
        let tenth = max(peaks.count / 10, 1)
        for (magnitude, count) in histogram.enumerated() {
            counted += count
            if counted >= tenth {
                floorMagnitude = magnitude
                break
            }
        }
        let floor = Self.decibels(floorMagnitude)
        let threshold = Self.threshold(floor: floor, loudest: Self.decibels(loudest))
        let level = Int((pow(10, threshold / 20) * 32768).rounded(.up))
        guard loudest >= level else { return nil }
        return (floor, threshold, peaks.map { $0.magnitude >= level })
    }

    /// The level (dBFS) a peak must reach to be sound in a clip of this noise `floor` and this
    /// `loudest` peak (``TrimProposal/threshold``): 12 dB over the floor, at least -70, and at
    /// most halfway (in dB) from the floor to the loudest peak. So a steady noise (a fan, traffic)
    /// within 24 dB of the voice puts the threshold between the two, above the noise's own peaks
    /// (which spread about 6 dB over its floor) and under the voice's; it is never under the
    /// floor. A clip with nothing ``standingOut`` of its floor has it ``thresholdBelowLoudest``
    /// under its loudest peak: all sound, nothing cut.
    package static func threshold(floor: Double, loudest: Double) -> Double {
        let overFloor = max(floor + thresholdAboveFloor, lowestThreshold)
        // Nothing stands out of the floor (a steady sound filling the clip, or a noise alone).
        guard loudest - floor >= standingOut else { return min(overFloor, loudest - thresholdBelowLoudest) }
        return min(overFloor, (floor + loudest) / 2)
    }

    /// The index of the first loud peak of the first sound (``soundWindow``, ``soundPeaks``) from
    /// the start, or with `reversed` of the last loud peak of the last sound; nil when none.
    private func soundStart(_ loud: [Bool], reversed: Bool) -> Int? {
        let indices = reversed ? Array(loud.indices.reversed()) : Array(loud.indices)
        var window = 0
        for (position, index) in indices.enumerated() {
            if loud[index] { window += 1 }
            if position >= Self.soundWindow, loud[indices[position - Self.soundWindow]] { window -= 1 }
            guard window >= min(Self.soundPeaks, loud.count) else { continue }
            // The sound's first loud peak within the window that completed it.
            let from = max(position - Self.soundWindow + 1, 0)
            return indices[from...position].first { loud[$0] }
        }
        // A clip shorter than a sound: its loudest stretch is the sound.
        return indices.first { loud[$0] }
    }

    /// The quietest stretch of the clip, about `seconds` long, as a range of seconds: where its
    /// noise is learnt from (`clean`). Stretches of digital silence (every peak 0, a
    /// paused recording's splice) are not noise: a stretch holding any is passed over; nil when the clip has no
    /// other stretch.
    package func quietestStretch(seconds: Double) -> Range<Double>? {
        let perPeak = Double(samplesPerPeak) / Double(sampleRate)
        let width = max(min(Int(seconds / perPeak), peaks.count), 1)
        guard peaks.count >= width else { return nil }
        var sum = 0, zeros = 0
        var best: (sum: Int, index: Int)?
        for index in peaks.indices {
            sum += peaks[index].magnitude
            if peaks[index].magnitude == 0 { zeros += 1 }
            if index >= width {
                sum -= peaks[index - width].magnitude
                if peaks[index - width].magnitude == 0 { zeros -= 1 }
            }
            guard index >= width - 1, zeros == 0 else { continue }
            if best == nil || sum < best!.sum { best = (sum, index - width + 1) }
        }
        return best.map { Double($0.index) * perPeak ..< Double($0.index + width) * perPeak }
    }

    /// A peak's magnitude (0...32768) in dBFS; -96 for 0 (below a 16-bit sample's resolution).
    package static func decibels(_ magnitude: Int) -> Double {
        magnitude <= 0 ? -96 : 20 * log10(Double(magnitude) / 32768)
    }
}
