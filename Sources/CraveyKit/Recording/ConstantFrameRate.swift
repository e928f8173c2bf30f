/// Turns pictures stamped on the recording's clock into frames at a constant rate, dropping or
/// repeating pictures so that frame `n` shows what the camera saw at `origin + n / rate`: the
/// video never drifts from the clock, however unevenly the camera delivers.
///
/// `origin` is the clock's time at the recording's start (the first audio sample's). Until it is
/// known, pictures wait (the newest `maxWaiting`; older ones are from before the start). Frame `n`
/// is released only once the audio reaches it (``release(upTo:)``), so the video never runs ahead
/// of the audio and both end together (``finish(at:)``). A picture more than 1.1 frames late for
/// its frame is dropped, and so is one whose successor is nearer to that frame (a camera faster
/// than the rate); a gap of more than 1.1 frames repeats the picture before it, as ffmpeg's
/// `-vsync cfr` does: within that tolerance, a camera's jitter neither drops nor repeats.
///
/// A paused stretch of the recording is cut out of the clock (``cut(from:)``, ``endCut(at:)``,
/// at the audio's own times): pictures taken in it are forgotten, and pictures after it move
/// back by its length, so the video leaves out what the audio left out and the two stay in step.
///
/// Generic over the picture so that its rules can be tested without FFmpeg.
struct ConstantFrameRate<Picture> {
    let frameRate: Double
    /// How many pictures may wait for the audio; beyond that the oldest goes out anyway (the
    /// audio is late) and before the start it is forgotten.
    let maxWaiting: Int
    /// The clock's time of frame 0, in seconds; nil until the recording's start is known.
    var origin: Double?
    /// The next frame's number: frames written so far.
    private(set) var next: Int64 = 0
    /// Pictures never written because a newer one took their frame.
    private(set) var dropped = 0
    /// Frames that repeat the picture before them (or, at the start, the first picture).
    private(set) var duplicated = 0
    private var waiting: [(picture: Picture, time: Double)] = []
    private var last: Picture?
    /// Stretches of the clock cut out (a pause), oldest first, none of them before the first
    /// waiting picture; the last one's end is nil while the pause goes on.
    private var cuts: [(start: Double, end: Double?)] = []
    /// Seconds cut out before the first waiting picture.
    private var removed = 0.0

    init(frameRate: Int, maxWaiting: Int = 8) {
        precondition(frameRate > 0 && maxWaiting > 0)
        self.frameRate = Double(frameRate)
        self.maxWaiting = maxWaiting
    }

    /// Takes a picture captured at `time` (seconds on the recording's clock, rising).
    mutating func add(_ picture: Picture, at time: Double) {
        waiting.append((picture, time))
        if origin == nil, waiting.count > maxWaiting { last = waiting.removeFirst().picture }
        // While a pause goes on, its pictures wait to learn where it ends; only the newest few
        // can be after its end.
        if let pause = cuts.last, pause.end == nil, let first = waiting.firstIndex(where: { $0.time >= pause.start }),
           waiting.count - first > maxWaiting {
            waiting.remove(at: first)
        }
    }

    /// Cuts the clock from `time` on (a pause began with the audio captured then): pictures
    /// from then on are left out, until ``endCut(at:)``.
    mutating func cut(from time: Double) {
        cuts.append((time, nil))
    }

    /// Ends the cut under way at `time` (the audio is recorded again from the sample captured
    /// then): pictures from then on follow the video as if the cut stretch had not been.
    mutating func endCut(at time: Double) {
        guard let last = cuts.indices.last, cuts[last].end == nil else { return }
        cuts[last].end = max(time, cuts[last].start)
    }

    /// Where a picture taken at `time` falls on the video, in frames from frame 0; nil when it
    /// was taken during a pause (`ended` false: a pause that goes on, whose pictures may yet be
    /// after its end). Cuts before `time` no longer listed are counted in `removed`.
    private func position(of time: Double) -> (frames: Double?, ended: Bool) {
        guard let origin else { return (nil, false) }
        var shift = removed
        for cut in cuts where time >= cut.start {
            guard let end = cut.end else { return (nil, false) }
            guard time >= end else { return (nil, true) }
            shift += end - cut.start
        }
        return ((time - shift - origin) * frameRate, true)
    }

    /// The frames to encode now, each with its number, for a recording whose audio has reached
    /// `seconds` (from its start): every frame that starts before then, as far as pictures have arrived.
    mutating func release(upTo seconds: Double) -> [(picture: Picture, frame: Int64)] {
        guard origin != nil else { return [] }
        return take(before: Int64((seconds * frameRate).rounded()), atEnd: false)
    }

    /// The last frames of a recording whose audio lasts `seconds`: the pictures that reach into
    /// it, then the last picture repeated up to its end. Pictures after the end are forgotten.
    mutating func finish(at seconds: Double) -> [(picture: Picture, frame: Int64)] {
        if origin == nil { origin = waiting.first?.time ?? 0 }
        let limit = Int64((seconds * frameRate).rounded())
        var frames = take(before: limit, atEnd: true)
        waiting.removeAll()
        while next < limit, let previous = last {
            frames.append((previous, next))
            duplicated += 1
            next += 1
        }
        return frames
    }

    /// Places waiting pictures on frames before `limit`. During the recording, a picture whose
    /// frame is not reached yet waits, unless too many wait (the audio is late); at the end it goes.
    private mutating func take(before limit: Int64, atEnd: Bool) -> [(picture: Picture, frame: Int64)] {
        guard origin != nil else { return [] }
        var frames: [(picture: Picture, frame: Int64)] = []
        while let (picture, time) = waiting.first {
            // The cuts it is past no longer matter to it or to any picture after it.
            while let cut = cuts.first, let end = cut.end, time >= end {
                removed += end - cut.start
                cuts.removeFirst()
            }
            let (placed, ended) = position(of: time)
            guard let position = placed else {
                // In a pause: forgotten once the pause has ended (or the recording has); until
                // then it waits.
                guard ended || atEnd else { break }
                waiting.removeFirst()
                continue
            }
            if next == 0, position < -0.5 {
                last = picture  // from before the start: at most a stand-in for frame 0
                waiting.removeFirst()
                continue
            }
            let delta = position - Double(next)
            let successor = waiting.count > 1 ? self.position(of: waiting[1].time).frames : nil
            // Too late for its frame, or the picture after it is nearer to that frame.
            if delta < -1.1 || successor.map({ abs($0 - Double(next)) < abs(delta) }) == true {
                dropped += 1
                waiting.removeFirst()
                continue
            }
            // Its frame: the next one, or a later one after a gap, filled with the picture before.
            let frame = delta > 1.1 ? next + Int64(delta.rounded()) : next
            if frame >= limit, atEnd || waiting.count <= maxWaiting { break }
            while next < frame {
                frames.append((last ?? picture, next))
                duplicated += 1
                next += 1
            }
            frames.append((picture, next))
            next += 1
            last = picture
            waiting.removeFirst()
        }
        return frames
    }
}
