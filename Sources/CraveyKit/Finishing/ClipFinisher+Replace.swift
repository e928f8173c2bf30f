import Foundation
import SystemPackage

extension ClipFinisher {
    /// A clip's new media (trimmed, cleaned), written in `Recordings/` under its writing name,
    /// and what it was made from.
    struct Replacement: Sendable {
        /// The clip as it was read when its new media was made.
        var recording: Recording
        /// The new media, complete, under the clip's `.importing` name, held by this process.
        var file: StoredFile
        /// The clip as it was when its new media was made from it, or as the question that
        /// led to the change showed it: the replacement is refused once it is no longer so.
        var source: ClipVersion
        /// The stretch of the old media the new one is, exactly, in seconds (a trim's
        /// `start...end`): the clip's markers move with it (the ones outside go), and so do its
        /// transcript's words. Nil (a clean-up): the markers keep their times, and the
        /// transcript, whose sound is another, goes (`cravey transcribe` makes it again).
        var kept: ClosedRange<Double>? = nil
    }

    /// What the new media holds, measured once: its duration, its loudness, and every part made
    /// from it (``PartMaker``: its waveform, a video's thumbnail).
    struct Measured: Sendable {
        var duration: Double
        var loudness: LoudnessMeasurement?
        var parts: [ClipFiles.Part: Data]
    }

    /// Measures a clip's new media as ``finish(_:metadata:createdAt:)`` measures a new clip's:
    /// its duration, its loudness and waveform in one decoding (the waveform cut to the
    /// duration: the decoder also gives the samples a last frame holds past the edit list's
    /// end), then every part made from it. Blocking.
    func measure(_ file: StoredFile, type: RecordingType) throws -> Measured {
        let media = store.media(file)
        let duration = try MediaProbe.duration(of: media)
        let analysis = try AudioAnalysis.measure(media, loudness: true, waveform: true)
        var waveform = analysis?.waveform
        if let peaks = waveform {
            let count = Int((duration * Double(peaks.sampleRate) / Double(peaks.samplesPerPeak)).rounded(.up))
            waveform = Waveform(sampleRate: peaks.sampleRate, samplesPerPeak: peaks.samplesPerPeak, peaks: Array(peaks.peaks.prefix(count)))
        }
        let parts = try PartMaker.parts(of: media, type: type, decoded: .init(duration: duration, waveform: waveform))
        return Measured(duration: duration, loudness: analysis?.loudness, parts: parts)
    }

    /// Replaces a clip's media with `replacement`'s, and with it everything derived from the
    /// media (its row's duration, size, loudness and thumbnail path, its markers moved with the
    /// sound as they are at the commit, its waveform, its thumbnail, its own copy, its transcript:
    /// shifted to a trim's ``Replacement/kept``, else dropped), in one transaction of the store;
    /// its id, title, notes, purpose, creation
    /// date and plays stay. The old media is gone with the rename that puts the new one in its
    /// place: what was cut is gone. Returns the row as it now is.
    ///
    /// A kill or a power cut at any instant leaves the whole old clip or the whole new one, once
    /// `doctor --repair` has run. Under the writers' lock, in order: the clip is read again and
    /// must still be the version the replacement was made from or asked about (else nothing
    /// changes, `.busy`; ``StoreTransaction/expect(_:)``); the
    /// clip's journal is flushed; the new media takes the clip's name in one rename, its folder
    /// flushed; the waveform and thumbnail are written; the row gets the new facts and its copy
    /// is written before the commit; after the commit the journal goes. A crash between the
    /// journal and its removal leaves it, and a repair makes the clip's facts, waveform,
    /// thumbnail and copy again from whichever media is in place (``StoreTransaction/replaceMedia(of:with:)``).
    func replace(_ replacement: Replacement, with measured: Measured) throws -> Recording {
        let id = replacement.recording.id
        let clip = ClipFiles(replacement.recording)
        defer { store.remove(replacement.file) }  // gone already once it took the clip's name
        return try store.write { tx in
            let current = try tx.expect(replacement.source)
            let markers = replacement.kept.map { ClipMarker.kept(current.markers, from: $0.lowerBound, to: $0.upperBound) } ?? current.markers
            let size = try tx.replaceMedia(of: clip, with: replacement.file, markers: markers)
            do {
                let thumbnail = try writeParts(measured.parts, of: clip, after: replacement.kept.map(MediaChange.trimmed) ?? .replaced, in: tx)
                return try tx.repository.updateMedia(of: id, duration: measured.duration, fileSize: size,
                                                     loudness: measured.loudness, thumbnailPath: thumbnail, markers: markers)
            } catch {
                throw CraveyError(.cannotWrite, "The new version of \"\(current.title)\" is in place, but what it owns could not all be written (\((error as? CraveyError)?.message ?? "\(error)")).",
                                  advice: .registerWithRepair, underlying: error)
            }
        }
    }
}
