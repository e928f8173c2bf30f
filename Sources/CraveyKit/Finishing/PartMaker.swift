import CraveyCore
import Foundation

/// How a part the list makes from a clip's media (``ClipFiles/Part/Remaking/fromMedia``) is made:
/// one maker for each such part, listed once (``all``). The finisher, the replacement of a clip's
/// media (a trim, a clean-up) and a repair each decode the media once (its length, loudness and
/// waveform), then every maker makes its part from the media and that decoding, and
/// ``ClipFinisher/writeParts(_:of:kept:in:)`` writes them all.
///
/// A new part made from the media is its constant in the list (`ClipFiles.swift`), its maker
/// here, and its test.
struct PartMaker: Sendable {
    /// What the finisher's one decoding of the media found, for a maker to use rather than
    /// decode the media again.
    struct Decoded: Sendable {
        /// Seconds.
        var duration: Double
        /// The sound's peaks, cut to the duration; nil without sound.
        var waveform: Waveform?
    }

    let part: ClipFiles.Part
    /// The part's bytes for the media; nil when the clip has none (no sound to draw). Throws
    /// when it cannot be made: the clip is then kept without it (a repair or its next use makes
    /// it again), unless the part is required (an import's thumbnail).
    let make: @Sendable (MediaLocation, Decoded) throws -> Data?

    /// A waveform: the peaks of the one decoding, in audiowaveform's binary format.
    static let waveform = PartMaker(part: .waveform) { _, decoded in decoded.waveform?.audiowaveformData() }
    /// A video's thumbnail: its picture at 10% of its length, as a JPEG.
    static let thumbnail = PartMaker(part: .thumbnail) { media, _ in try Thumbnailer.jpeg(forVideoAt: media) }

    private static let listed = [waveform, thumbnail]
    private static let tried = Locked<[PartMaker]>([])

    /// Every maker, in the list's order.
    static var all: [PartMaker] { listed + tried.withLock { $0 } }

    /// Adds `maker` to ``all`` for the rest of this process, its part to the list
    /// (``ClipFiles/Part/register(_:)``): how a new part made from the media is tried, by a
    /// test, before it joins the lists.
    static func register(_ maker: PartMaker) {
        precondition(maker.part.remaking == .fromMedia && maker.part.origin == .derived,
                     "A maker's part is made from the media: \(maker.part.name) is not.")
        ClipFiles.Part.register(maker.part)
        tried.withLock { makers in
            if !makers.contains(where: { $0.part == maker.part }) { makers.append(maker) }
        }
    }

    /// Every part the makers make for `media`, a clip of `type`: those they could make. A part
    /// in `required` that cannot be made is thrown; any other is left out.
    static func parts(of media: MediaLocation, type: RecordingType, decoded: Decoded,
                      requiring required: Set<ClipFiles.Part> = []) throws -> [ClipFiles.Part: Data] {
        var made: [ClipFiles.Part: Data] = [:]
        for maker in all where maker.part.types.contains(type) {
            do {
                made[maker.part] = try maker.make(media, decoded)
            } catch where !required.contains(maker.part) {
                continue
            }
        }
        return made
    }
}
