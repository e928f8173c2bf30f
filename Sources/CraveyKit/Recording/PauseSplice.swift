import Foundation

/// Leaves the paused stretches out of a recording's audio, block by block, and joins the sound
/// on either side of each without a click.
///
/// A block read while paused is dropped whole, and what is recorded is counted in samples, so
/// the file's duration is the sum of the stretches recorded, to the sample. Where a pause ends,
/// the sound before it and the
/// sound after it are joined as a tape splice with a short crossfade would be, but in phase: the
/// first ``crossfade`` frames of the first dropped block (what the sound before the pause went
/// on to be) fade out while the first block after the pause fades in, starting at the frame
/// (within its first ``search`` frames) whose wave best matches them, so that a held note or a
/// vowel goes on without a dip or a jump (the frames before that one are left out too). Before
/// anything was recorded there is nothing to join: a pause then only delays the start.
///
/// Pure Swift and a value type, on the capture's thread; tested without a sound server.
struct PauseSplice {
    let channels: Int
    /// Frames over which one side fades into the other: 5 ms.
    let crossfade: Int
    /// How many frames at the start of the first block after a pause the joint may skip to meet
    /// the sound before it in phase: 10 ms, a period of any voice above 100 Hz.
    let search: Int
    private(set) var isPaused = false
    private var recordedAny = false
    /// The first frames of the first block dropped by the pause under way, to fade out.
    private var tail: [Int16] = []

    /// What a block changed.
    enum Change: Equatable {
        case paused, resumed
    }

    init(sampleRate: Int, channels: Int) {
        self.channels = channels
        crossfade = max(sampleRate / 200, 1)
        search = sampleRate / 100
    }

    /// Takes the next block read (interleaved samples) and whether the recording is paused as it
    /// is read. Returns the samples to record (none while paused), how many frames at the
    /// block's start were left out to join it in phase, and whether the pause began or ended here.
    mutating func take(_ block: [Int16], paused: Bool) -> (samples: [Int16], skipped: Int, change: Change?) {
        if paused {
            guard !isPaused else { return ([], 0, nil) }
            isPaused = true
            tail = recordedAny ? Array(block.prefix(crossfade * channels)) : []
            return ([], 0, .paused)
        }
        guard isPaused else {
            recordedAny = recordedAny || !block.isEmpty
            return (block, 0, nil)
        }
        isPaused = false
        defer { tail = [] }
        let frames = block.count / channels
        let fade = min(tail.count / channels, frames)
        guard fade > 0 else {
            recordedAny = recordedAny || !block.isEmpty
            return (block, 0, .resumed)
        }
        let skip = bestJoint(in: block, fade: fade, upTo: min(search, frames - fade))
        var joined = Array(block[(skip * channels)...])
        for frame in 0..<fade {
            // A raised cosine from the tail to the block: smooth at both ends.
            let weight = 0.5 - 0.5 * cos(Double.pi * (Double(frame) + 0.5) / Double(fade))
            for channel in 0..<channels {
                let index = frame * channels + channel
                let mixed = Double(tail[index]) * (1 - weight) + Double(joined[index]) * weight
                joined[index] = Int16(max(min(mixed.rounded(), 32767), -32768))
            }
        }
        return (joined, skip, .resumed)
    }

    /// The frame of `block`, from 0 to `limit`, where the next `fade` frames are most like the
    /// tail's (normalised cross-correlation); the first of equals, 0 for silence.
    private func bestJoint(in block: [Int16], fade: Int, upTo limit: Int) -> Int {
        var best = 0
        var bestScore = -Double.infinity
        for offset in 0...max(limit, 0) {
            var product = 0.0, energy = 0.0
            for index in 0..<fade * channels {
                let sample = Double(block[offset * channels + index])
                product += Double(tail[index]) * sample
                energy += sample * sample
            }
            let score = energy > 0 ? product / energy.squareRoot() : 0
            if score > bestScore {
                (best, bestScore) = (offset, score)
            }
        }
        return best
    }
}
