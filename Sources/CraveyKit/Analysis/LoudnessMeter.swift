import CraveyCore
import Foundation

/// Measures integrated loudness and true peak as EBU R128 asks (ITU-R BS.1770-4), over float
/// samples appended as they come: K-weighting, 400 ms blocks every 100 ms, an absolute gate at
/// -70 LUFS and a relative gate 10 LU below the loudness of the blocks that pass it; true peak
/// from 4x oversampling with the recommendation's 48-tap interpolation filter.
///
/// Pure Swift and a value type: no FFmpeg, nothing shared, cheap to copy before it grows. Every
/// channel weighs 1 (left, right and centre in BS.1770); mix surround layouts down first.
/// Memory grows by one `Double` per 100 ms of audio (about 290 KB an hour).
package struct LoudnessMeter: Sendable {
    package let sampleRate: Int
    package let channels: Int
    /// Whether a single channel counts twice, as a mono clip sounds when a stereo sink plays it
    /// on both sides (ffmpeg's `ebur128=dualmono=true`): +3 LU over plain BS.1770 mono.
    package let dualMono: Bool

    private let weight: Double
    private let subBlockLength: Int
    private let coefficients: KWeighting
    private var filters: [KWeighting.State]
    /// The last ``LoudnessMeter/tapsPerPhase`` - 1 samples of each channel, which the next samples'
    /// interpolation reads.
    private var history: [Float]
    /// The largest absolute value of each channel, sampled or interpolated.
    private var peaks: [Float]
    private var subBlockFill = 0
    private var subBlockEnergy = 0.0
    private var subBlocks: [Double] = []
    private var blocks: [Double] = []
    private var scratch: [Float] = []
    private var segments: [Double] = []

    /// A meter for interleaved samples of `channels` channels at `sampleRate` Hz (both must be
    /// positive: anything else is a programming error and stops the program).
    package init(sampleRate: Int, channels: Int, dualMono: Bool = false) {
        precondition(sampleRate > 0 && channels > 0, "A loudness meter needs a sample rate and at least one channel.")
        self.sampleRate = sampleRate
        self.channels = channels
        self.dualMono = dualMono && channels == 1
        weight = self.dualMono ? 2 : 1
        // As libebur128 rounds it: 4,800 samples at 48 kHz, 4,410 at 44.1 kHz.
        subBlockLength = max((sampleRate + 5) / 10, 1)
        coefficients = KWeighting(sampleRate: Double(sampleRate))
        filters = Array(repeating: KWeighting.State(), count: channels)
        history = Array(repeating: 0, count: channels * (Self.tapsPerPhase - 1))
        peaks = Array(repeating: 0, count: channels)
    }

    /// A meter for a clip the library plays: a mono clip counts as dual mono, since a stereo
    /// sink plays its one channel on both sides; that way mono and stereo clips of equal
    /// loudness sound equally loud.
    package static func forPlayback(sampleRate: Int, channels: Int) -> LoudnessMeter {
        LoudnessMeter(sampleRate: sampleRate, channels: channels, dualMono: channels == 1)
    }

    /// Seconds of audio appended so far.
    package var duration: Double {
        Double((subBlocks.count) * subBlockLength + subBlockFill) / Double(sampleRate)
    }

    /// Appends interleaved samples, full scale ±1; a trailing partial frame is ignored.
    mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        let frames = samples.count / channels
        guard frames > 0, let base = samples.baseAddress else { return }
        let lead = Self.tapsPerPhase - 1
        if scratch.count < frames + lead { scratch = Array(repeating: 0, count: frames + lead) }
        // Where this call's samples close sub-blocks: the first one after `first` frames.
        let first = min(subBlockLength - subBlockFill, frames)
        let segmentCount = 1 + (frames - first + subBlockLength - 1) / subBlockLength
        segments.removeAll(keepingCapacity: true)
        segments.append(contentsOf: repeatElement(0, count: segmentCount))
        for channel in 0..<channels {
            scratch.withUnsafeMutableBufferPointer { scratch in
                history.withUnsafeMutableBufferPointer { history in
                    let past = history.baseAddress! + channel * lead
                    for index in 0..<lead { scratch[index] = past[index] }
                    var source = base + channel
                    for index in 0..<frames {
                        scratch[lead + index] = source.pointee
                        source += channels
                    }
                    peaks[channel] = max(peaks[channel], Self.truePeak(scratch.baseAddress!, count: frames))
                    for index in 0..<lead { past[index] = scratch[frames + index] }
                }
                let input = UnsafeBufferPointer(rebasing: scratch[lead..<lead + frames])
                var start = 0
                var end = first
                for segment in 0..<segmentCount {
                    segments[segment] += weight * coefficients.sumOfSquares(UnsafeBufferPointer(rebasing: input[start..<end]),
                                                                            state: &filters[channel])
                    start = end
                    end = min(end + subBlockLength, frames)
                }
            }
        }
        var remaining = frames
        for (segment, energy) in segments.enumerated() {
            let length = segment == 0 ? first : min(subBlockLength, remaining)
            remaining -= length
            subBlockEnergy += energy
            subBlockFill += length
            if subBlockFill == subBlockLength { closeSubBlock() }
        }
    }

    /// Appends interleaved samples, full scale ±1.
    package mutating func append(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { append($0) }
    }

    /// Appends interleaved signed 16-bit samples, as PulseAudio captures them.
    package mutating func append(_ samples: [Int16]) {
        let converted = samples.map { Float($0) / 32768 }
        converted.withUnsafeBufferPointer { append($0) }
    }

    /// What the samples so far measure: minus infinity for the integrated loudness when no
    /// block passes the absolute gate (silence, or less than 400 ms of audio), and for the true
    /// peak when every sample was zero.
    package var measurement: LoudnessMeasurement {
        LoudnessMeasurement(integrated: integratedLoudness, truePeak: Self.decibels(Double(peaks.max() ?? 0)))
    }

    private var integratedLoudness: Double {
        let absolute = Self.energy(ofLoudness: -70)
        var sum = 0.0
        var count = 0
        for energy in blocks where energy > absolute {
            sum += energy
            count += 1
        }
        guard count > 0 else { return -.infinity }
        // 10 LU below the loudness of the blocks above the absolute gate: a tenth of their energy.
        let relative = sum / Double(count) / 10
        sum = 0
        count = 0
        for energy in blocks where energy > relative {
            sum += energy
            count += 1
        }
        return Self.loudness(ofEnergy: sum / Double(count))
    }

    private mutating func closeSubBlock() {
        subBlocks.append(subBlockEnergy / Double(subBlockLength))
        subBlockEnergy = 0
        subBlockFill = 0
        if subBlocks.count >= 4 {
            let last = subBlocks.count
            blocks.append((subBlocks[last - 4] + subBlocks[last - 3] + subBlocks[last - 2] + subBlocks[last - 1]) / 4)
        }
    }

    /// BS.1770's offset: a full-scale 997 Hz sine in one channel reads -3.01 LUFS.
    private static let offset = -0.691

    private static func loudness(ofEnergy energy: Double) -> Double { offset + 10 * log10(energy) }
    private static func energy(ofLoudness loudness: Double) -> Double { pow(10, (loudness - offset) / 10) }

    private static func decibels(_ amplitude: Double) -> Double {
        amplitude > 0 ? 20 * log10(amplitude) : -.infinity
    }

    // MARK: - True peak

    private static let tapsPerPhase = 12

    /// ITU-R BS.1770-4 Annex 2: the four phases of the 48-tap interpolation filter for 4x oversampling.
    private static let phases: [Float] = [
        0.0017089843750, 0.0109863281250, -0.0196533203125, 0.0332031250000, -0.0594482421875, 0.1373291015625,
        0.9721679687500, -0.1022949218750, 0.0476074218750, -0.0266113281250, 0.0148925781250, -0.0083007812500,
        -0.0291748046875, 0.0292968750000, -0.0517578125000, 0.0891113281250, -0.1665039062500, 0.4650878906250,
        0.7797851562500, -0.2003173828125, 0.1015625000000, -0.0582275390625, 0.0330810546875, -0.0189208984375,
        -0.0189208984375, 0.0330810546875, -0.0582275390625, 0.1015625000000, -0.2003173828125, 0.7797851562500,
        0.4650878906250, -0.1665039062500, 0.0891113281250, -0.0517578125000, 0.0292968750000, -0.0291748046875,
        -0.0083007812500, 0.0148925781250, -0.0266113281250, 0.0476074218750, -0.1022949218750, 0.9721679687500,
        0.1373291015625, -0.0594482421875, 0.0332031250000, -0.0196533203125, 0.0109863281250, 0.0017089843750,
    ]

    /// The largest absolute value among `count` samples that follow 11 samples of history in
    /// `samples`, and the four values interpolated at and between each of them.
    ///
    /// Each phase is computed for a run of samples at a time, tap by tap, a loop the compiler
    /// can vectorise (a dot product per interpolated value does not).
    private static func truePeak(_ samples: UnsafePointer<Float>, count: Int) -> Float {
        let run = 512
        return phases.withUnsafeBufferPointer { taps in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: run) { output in
                let out = output.baseAddress!
                var peak: Float = 0
                var start = 0
                while start < count {
                    let length = min(run, count - start)
                    let newest = samples + start + tapsPerPhase - 1
                    for index in 0..<length {
                        let value = abs(newest[index])
                        peak = value > peak ? value : peak
                    }
                    for phase in 0..<4 {
                        out.update(repeating: 0, count: length)
                        for tap in 0..<tapsPerPhase {
                            // x[n - tap] for every n of the run.
                            let coefficient = taps[phase * tapsPerPhase + tap]
                            let input = newest - tap
                            for index in 0..<length { out[index] += coefficient * input[index] }
                        }
                        for index in 0..<length {
                            let value = abs(out[index])
                            peak = value > peak ? value : peak
                        }
                    }
                    start += length
                }
                return peak
            }
        }
    }
}

/// The K-weighting of BS.1770: a high-shelf pre-filter (+4 dB above about 1.7 kHz, the head's
/// effect) and the RLB high-pass (below about 38 Hz), as two biquads designed for any sample
/// rate (the formulas libebur128 uses; at 48 kHz they give the recommendation's coefficients).
private struct KWeighting: Sendable {
    struct State: Sendable {
        var shelf1 = 0.0, shelf2 = 0.0, pass1 = 0.0, pass2 = 0.0
    }

    let shelfB: (Double, Double, Double)
    let shelfA: (Double, Double)
    let passA: (Double, Double)

    init(sampleRate: Double) {
        var f0 = 1681.974450955533
        let gain = 3.999843853973347
        var q = 0.7071752369554196
        var k = tan(Double.pi * f0 / sampleRate)
        let vh = pow(10, gain / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        shelfB = ((vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0)
        shelfA = (2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / sampleRate)
        a0 = 1 + k / q + k * k
        passA = (2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
    }

    /// Filters `samples` from `state` on, leaving `state` after them; returns the sum of the
    /// squares of the filtered samples. Direct form II transposed, in double precision.
    func sumOfSquares(_ samples: UnsafeBufferPointer<Float>, state: inout State) -> Double {
        var (s1, s2, p1, p2) = (state.shelf1, state.shelf2, state.pass1, state.pass2)
        let (b0, b1, b2) = shelfB
        let (a1, a2) = shelfA
        let (c1, c2) = passA
        var sum = 0.0
        for sample in samples {
            let x = Double(sample)
            let shelved = b0 * x + s1
            s1 = b1 * x - a1 * shelved + s2
            s2 = b2 * x - a2 * shelved
            // The high-pass's numerator is 1, -2, 1.
            let passed = shelved + p1
            p1 = -2 * shelved - c1 * passed + p2
            p2 = shelved - c2 * passed
            sum += passed * passed
        }
        // Flush what has decayed below any audible level, so silence after sound does not run
        // on subnormal numbers.
        state = State(shelf1: abs(s1) < 1e-30 ? 0 : s1, shelf2: abs(s2) < 1e-30 ? 0 : s2,
                      pass1: abs(p1) < 1e-30 ? 0 : p1, pass2: abs(p2) < 1e-30 ? 0 : p2)
        return sum
    }
}
