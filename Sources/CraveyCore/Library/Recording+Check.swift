import Foundation

extension Recording {
    /// The bounds a clip's values are held to wherever they enter the library: a fresh
    /// recording's, an import's, a backup's and a clip's own copy alike.
    package enum Bounds {
        /// Dates from 2000-01-01 to 2200-01-01 (UTC): a clock reset to 1970, or a year past 9999
        /// that no date format stores, is no date of a clip.
        package static let dates = Date(timeIntervalSince1970: 946_684_800)...Date(timeIntervalSince1970: 7_258_118_400)
        /// Up to 1,000 hours.
        package static let duration = 0.0...3_600_000.0
        /// Integrated loudness a measurement can give: the absolute gate (-70 LUFS) to full-scale
        /// square waves (about +3 LUFS), or minus infinity for a silent clip.
        package static let integratedLoudness = -70.0...10.0
        /// A true peak a measurement can give: far under the quietest sample of 24-bit audio to the
        /// overs a 4x oversampled peak finds, or minus infinity for digital silence.
        package static let truePeak = -200.0...30.0
    }

    /// What is wrong with this clip's values for a clip of the library, one "field: why" each;
    /// empty when they are what a fresh recording's could be. `plays` are its plays, when they
    /// come with it (a backup's record, a clip's own copy): checked too, and its play count must
    /// be their number, as every play adds one of each. A loudness out of its bounds
    /// (``LoudnessMeasurement/isPlausible``: NaN, -200 LUFS, +inf) is one no measurement gives;
    /// a row's reads as not measured before it gets here.
    package func problems(plays: [PlayEvent]? = nil) -> [String] {
        var problems: [String] = []
        let clip = ClipFiles(self)
        if let refusal = Self.refusal(title: title, notes: notes) { problems.append(refusal) }
        if title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { problems.append("title: it is empty") }
        if !Bounds.dates.contains(createdAt) { problems.append("createdAt: \(Self.describe(createdAt)) is not a date of a clip") }
        if let lastPlayedAt, !Bounds.dates.contains(lastPlayedAt) {
            problems.append("lastPlayedAt: \(Self.describe(lastPlayedAt)) is not a date of a clip")
        }
        if !duration.isFinite || !Bounds.duration.contains(duration) { problems.append("duration: \(duration) is not a length of a clip") }
        if let pinnedSlot, !(1...RecordingRepository.quickPlayCount).contains(pinnedSlot) {
            problems.append("pinnedSlot: \(pinnedSlot) is not a Quick Play slot (1 to \(RecordingRepository.quickPlayCount))")
        }
        for tag in tags where (try? ClipTags.checked(tag)) != tag {
            problems.append("tags: \(CraveyError.quoted(tag, "\"")) is not a tag cravey gives (a word of at most \(ClipTags.maxLength) characters, in lower case)")
        }
        if tags.count > ClipTags.maxCount || Set(tags).count != tags.count || tags != tags.sorted() {
            problems.append("tags: \(tags.count) tags, sorted and each once, at most \(ClipTags.maxCount)")
        }
        for marker in markers where (try? ClipMarker.checkedLabel(marker.label)) != marker.label || marker.milliseconds < 0
            || marker.seconds > duration + 0.05 {
            problems.append("markers: the one at \(marker.seconds) s is not a marker cravey gives (within the clip, a label of at most \(ClipMarker.maxLabelLength) printable characters)")
        }
        if markers.count > ClipMarker.maxCount || zip(markers, markers.dropFirst()).contains(where: { $0.milliseconds >= $1.milliseconds }) {
            problems.append("markers: \(markers.count) markers, in time order and one a millisecond, at most \(ClipMarker.maxCount)")
        }
        if fileSize < 0 { problems.append("fileSize: \(fileSize) is negative") }
        if let plays, playCount != plays.count {
            problems.append("playCount: \(playCount) is not the count of its \(plays.count) play\(plays.count == 1 ? "" : "s")")
        } else if playCount < 0 {
            problems.append("playCount: \(playCount) is negative")
        }
        if let loudness, !loudness.isPlausible {
            problems.append("loudness: \(loudness.integrated) LUFS, true peak \(loudness.truePeak) dBTP, is not one a measurement gives")
        }
        if filePath != clip.media().path { problems.append("filePath: \(CraveyError.quoted(filePath)) is not the clip's own file (\(clip.media().path))") }
        if let thumbnailPath, thumbnailPath != clip.file(.thumbnail)?.path {
            problems.append("thumbnailPath: \(CraveyError.quoted(thumbnailPath)) is not the clip's own thumbnail")
        }
        for play in plays ?? [] {
            if play.recordingId != id { problems.append("plays: a play names another clip (\(play.recordingId.description))") }
            if !Bounds.dates.contains(play.playedAt) { problems.append("plays: \(Self.describe(play.playedAt)) is not a date of a play") }
            if !play.secondsListened.isFinite || !Bounds.duration.contains(play.secondsListened) {
                problems.append("plays: \(play.secondsListened) is not a number of seconds listened")
            }
        }
        return problems
    }

    /// Why a title or notes would be refused by `edit`, or nil.
    private static func refusal(title: String, notes: String?) -> String? {
        do {
            _ = try RecordingMetadata(title: title, notes: notes)
            return nil
        } catch {
            return (error.message.hasPrefix("The notes") ? "notes: " : "title: ") + error.message
        }
    }

    private static func describe(_ date: Date) -> String {
        date.timeIntervalSince1970.isFinite ? storedText(date) : "\(date.timeIntervalSince1970)"
    }
}

extension LoudnessMeasurement {
    /// Whether a measurement could have come from a clip (``Recording/Bounds``): one that could
    /// not (a damaged or edited row) is taken as not measured, never applied as a gain.
    package var isPlausible: Bool {
        (integrated == -.infinity || Recording.Bounds.integratedLoudness.contains(integrated))
            && (truePeak == -.infinity || Recording.Bounds.truePeak.contains(truePeak))
    }
}
