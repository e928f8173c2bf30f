import Foundation

/// A clip's record: its row (the fields `--json` prints), its loudness and its plays, in the one
/// JSON shape cravey writes a recording in. It is the clip's own copy beside its media
/// (`Recordings/<type>_<uuid>.json`), from which a repair registers the clip when the database is
/// lost, and a backup's record of the clip.
///
/// Written by ``RecordingJSON``'s writer, as `--json` and the export are: the same fields, keys
/// sorted, ISO 8601 dates; here to the millisecond, as the row keeps them (`--json` shows whole
/// seconds). The record of a clip is a function of what it holds, so a library restored from a
/// backup writes the same bytes again. Version 1 (dates as seconds since 1970, each play
/// carrying its ids) still reads.
package struct ClipRecord: Sendable, Equatable {
    /// 2: ISO 8601 dates, plays without ids.
    package static let version = 2

    package var recording: Recording
    package var plays: [PlayEvent]

    package init(recording: Recording, plays: [PlayEvent]) {
        self.recording = recording
        self.plays = plays
    }

    /// The record as JSON.
    package func encoded() -> Data {
        var out = JSONBuffer()
        out.millisecondDates = true
        out.append("{\n  \"loudness\" : ")
        if let loudness = recording.loudness {
            out.append("{\n    \"integrated\" : ")
            out.number(loudness.integrated)
            out.append(",\n    \"truePeak\" : ")
            out.number(loudness.truePeak)
            out.append("\n  }")
        } else {
            out.append("null")
        }
        out.append(",\n  \"plays\" : [")
        for (index, play) in plays.enumerated() {
            out.append(index == 0 ? "\n    {\n      \"completed\" : " : ",\n    {\n      \"completed\" : ")
            out.append(play.completed ? "true" : "false")
            out.append(",\n      \"playedAt\" : ")
            out.date(play.playedAt)
            out.append(",\n      \"secondsListened\" : ")
            out.number(play.secondsListened)
            out.append("\n    }")
        }
        out.append(plays.isEmpty ? "],\n  \"recording\" : " : "\n  ],\n  \"recording\" : ")
        out.write(recording, indent: 2)
        out.append(",\n  \"version\" : \(Self.version)\n}\n")
        return out.data
    }

    /// Reads a record; nil for what is not one, or one whose plays name another clip.
    package init?(decoding data: Data) {
        guard let decoded = try? Self.decoder.decode(Decoded.self, from: data) else { return nil }
        var recording = decoded.recording
        recording.loudness = decoded.loudness.map { LoudnessMeasurement(integrated: $0.integrated, truePeak: $0.truePeak) }
        guard decoded.plays.allSatisfy({ $0.recordingId == nil || $0.recordingId == recording.id }) else { return nil }
        self.init(recording: recording, plays: decoded.plays.map {
            PlayEvent(recordingId: recording.id, playedAt: $0.playedAt, secondsListened: $0.secondsListened, completed: $0.completed)
        })
    }

    private struct Decoded: Decodable {
        var recording: Recording
        var loudness: Loudness?
        var plays: [Play]

        struct Loudness: Decodable {
            var integrated: Double
            var truePeak: Double
        }

        struct Play: Decodable {
            var recordingId: RecordingID?
            var playedAt: Date
            var secondsListened: Double
            var completed: Bool
        }
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        // ISO 8601 (version 2), or seconds since 1970 (version 1).
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            let text = try container.decode(String.self)
            guard let date = Self.date(iso8601: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }()

    /// Parses "2026-11-22T15:42:00Z" or "2026-11-22T15:42:00.123Z" (UTC) on the proleptic
    /// Gregorian calendar, as ``JSONBuffer`` writes dates (Foundation's parser turns to the Julian
    /// calendar before 1582, so a date read back would not write as it was).
    static func date(iso8601 text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T"), bytes.last == UInt8(ascii: "Z"),
              bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: ":"),
              bytes[16] == UInt8(ascii: ":"), bytes.count == 20 || bytes[19] == UInt8(ascii: ".") else { return nil }
        var stored = bytes.dropLast()
        stored[10] = UInt8(ascii: " ")
        return Recording.storedDate(String(decoding: stored, as: UTF8.self))
    }
}
