import CraveyCore
import Foundation

/// Measures a clip's ``Waveform`` over samples appended as they come: the lowest and highest
/// sample of every run of ``Waveform/samplesPerPeak(atRate:)`` frames, all channels together.
///
/// Fed by the capture while recording (signed 16-bit samples, the very values written) and by
/// the one decoding of a file's audio otherwise (float samples, ±1 full scale, converted to
/// 16-bit values as `Int16(x * 32768)`, clamped). Pure Swift and a value type; memory grows by
/// 4 bytes per peak (1.4 MB an hour).
package struct PeakMeter: Sendable {
    package let sampleRate: Int
    package let channels: Int
    let samplesPerPeak: Int
    private var peaks: [Waveform.Peak] = []
    /// The run being measured: frames in it so far, and its extremes, in float (full scale ±1)
    /// or 16-bit units as appended.
    private var fill = 0
    private var low: Float = .infinity
    private var high: Float = -.infinity

    /// A meter for interleaved samples of `channels` channels at `sampleRate` Hz (both positive).
    package init(sampleRate: Int, channels: Int) {
        precondition(sampleRate > 0 && channels > 0, "A peak meter needs a sample rate and at least one channel.")
        self.sampleRate = sampleRate
        self.channels = channels
        samplesPerPeak = Waveform.samplesPerPeak(atRate: sampleRate)
    }

    /// The waveform of what was appended so far, the run under way counted as a last peak.
    package var waveform: Waveform {
        var all = peaks
        if fill > 0 { all.append(peak(low, high)) }
        return Waveform(sampleRate: sampleRate, samplesPerPeak: samplesPerPeak, peaks: all)
    }

    /// Frames appended so far.
    package var frames: Int { peaks.count * samplesPerPeak + fill }

    /// Appends interleaved signed 16-bit samples, as PulseAudio captures them.
    package mutating func append(_ samples: some Collection<Int16>) {
        var index = samples.startIndex
        var left = samples.count / channels
        while left > 0 {
            let run = min(samplesPerPeak - fill, left)
            var (runLow, runHigh) = (Int16.max, Int16.min)
            for _ in 0..<run * channels {
                let sample = samples[index]
                runLow = min(runLow, sample)
                runHigh = max(runHigh, sample)
                index = samples.index(after: index)
            }
            close(run, low: Float(runLow) / 32768, high: Float(runHigh) / 32768)
            left -= run
        }
    }

    /// Appends interleaved float samples, full scale ±1; a trailing partial frame is ignored.
    package mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        guard var next = samples.baseAddress else { return }
        var left = samples.count / channels
        while left > 0 {
            let run = min(samplesPerPeak - fill, left)
            let (runLow, runHigh) = Self.extremes(next, count: run * channels)
            close(run, low: runLow, high: runHigh)
            next += run * channels
            left -= run
        }
    }

    /// Takes `run` frames whose extremes are `runLow` and `runHigh` into the run under way,
    /// closing it when it is full.
    private mutating func close(_ run: Int, low runLow: Float, high runHigh: Float) {
        low = min(low, runLow)
        high = max(high, runHigh)
        fill += run
        if fill == samplesPerPeak {
            peaks.append(peak(low, high))
            (fill, low, high) = (0, .infinity, -.infinity)
        }
    }

    private func peak(_ low: Float, _ high: Float) -> Waveform.Peak {
        Waveform.Peak(min: Self.sample(low), max: Self.sample(high))
    }

    /// A float sample as a 16-bit value, clamped to full scale (NaN reads as silence).
    private static func sample(_ value: Float) -> Int16 {
        let scaled = (value * 32768).rounded()
        guard scaled == scaled else { return 0 }
        return Int16(max(min(scaled, 32767), -32768))
    }

    /// The lowest and highest of `count` floats, eight at a time, each lane kept by compare and
    /// replace, which compiles to vector instructions (`pointwiseMin`'s NaN rules would keep it
    /// scalar). A NaN is never taken.
    private static func extremes(_ values: UnsafePointer<Float>, count: Int) -> (Float, Float) {
        var lows = SIMD8<Float>(repeating: .infinity), highs = SIMD8<Float>(repeating: -.infinity)
        let raw = UnsafeRawPointer(values)
        var index = 0
        while index + 8 <= count {
            let chunk = raw.loadUnaligned(fromByteOffset: index * MemoryLayout<Float>.stride, as: SIMD8<Float>.self)
            lows.replace(with: chunk, where: chunk .< lows)
            highs.replace(with: chunk, where: chunk .> highs)
            index += 8
        }
        var low = lows.min(), high = highs.max()
        while index < count {
            low = min(low, values[index])
            high = max(high, values[index])
            index += 1
        }
        return (low, high)
    }
}
