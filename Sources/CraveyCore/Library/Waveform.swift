import Foundation

/// A clip's sound as a picture: the lowest and the highest sample of each hundredth of a second,
/// to draw it (a player's scrubber, a list's preview) without decoding its audio.
///
/// Every clip with sound keeps one beside its media, made once: from the samples captured while
/// it was recorded, from the decoding an import does anyway, or by the first repair or use
/// (``LibraryAnalysis/waveform(of:)``). Its channels are taken together (each peak is the
/// lowest and highest sample of any channel), so a sound only one side plays still shows.
///
/// The values are signed 16-bit samples (full scale -32768...32767), as audiowaveform writes
/// them: ``audiowaveformJSON()`` is the JSON that wavesurfer.js and peaks.js read, and the file
/// kept beside the clip is audiowaveform's binary format (``audiowaveformData()``).
package struct Waveform: Sendable, Equatable {
    /// The lowest and the highest sample of one run of ``Waveform/samplesPerPeak`` samples.
    package struct Peak: Sendable, Equatable, Hashable {
        package var min: Int16
        package var max: Int16

        package init(min: Int16, max: Int16) {
            self.min = min
            self.max = max
        }

        /// The larger of the two magnitudes, 0...32768.
        var magnitude: Int { Swift.max(-Int(min), Int(max)) }
    }

    /// Peaks a second cravey keeps: one every 10 ms, fine enough to show a syllable, and 400
    /// bytes a second of sound (1.4 MB an hour, about 3% of its AAC) at 16 bits.
    package static let peaksPerSecond = 100

    /// The sample rate of the audio the peaks were taken from, in Hz.
    package let sampleRate: Int
    /// How many samples (of each channel) one peak covers; the last peak may cover fewer.
    package let samplesPerPeak: Int
    /// The peaks, in order.
    package let peaks: [Peak]

    package init(sampleRate: Int, samplesPerPeak: Int, peaks: [Peak]) {
        precondition(sampleRate > 0 && samplesPerPeak > 0, "A waveform needs a sample rate and samples per peak.")
        self.sampleRate = sampleRate
        self.samplesPerPeak = samplesPerPeak
        self.peaks = peaks
    }

    /// How many samples a peak covers at `sampleRate`: a hundredth of a second (480 at 48 kHz,
    /// 441 at 44.1 kHz; at least 1).
    package static func samplesPerPeak(atRate sampleRate: Int) -> Int {
        max(sampleRate / peaksPerSecond, 1)
    }

    /// The seconds the peaks cover, the last counted whole.
    package var duration: Double {
        Double(peaks.count) * Double(samplesPerPeak) / Double(sampleRate)
    }

    /// The lowest and highest sample under each of `columns` columns spread evenly over the
    /// whole clip: several peaks together when there are more peaks than columns, the same peak
    /// repeated across columns when there are fewer. Empty for a waveform without peaks.
    package func columns(_ columns: Int) -> [Peak] {
        guard !peaks.isEmpty, columns > 0 else { return [] }
        let count = peaks.count
        return (0..<columns).map { column in
            let start = column * count / columns
            let end = Swift.min(Swift.max((column + 1) * count / columns, start + 1), count)
            var low = Int16.max, high = Int16.min
            for peak in peaks[start..<end] {
                low = Swift.min(low, peak.min)
                high = Swift.max(high, peak.max)
            }
            return Peak(min: low, max: high)
        }
    }
}
