import Foundation
import GRDB

extension RecordingType: DatabaseValueConvertible {}
extension RecordingPurpose: DatabaseValueConvertible {}

extension Recording {
    /// The columns every request selects, in this order (``fields``', then the loudness), so
    /// rows are read by index.
    public static var databaseSelection: [any SQLSelectable] {
        fields.map { Column($0.key) } + [Columns.loudnessIntegrated, Columns.loudnessTruePeak]
    }

    /// Reads a row by column index, which is several times faster than the Codable path on
    /// large lists.
    ///
    /// A row is read as the clip it can be used as: a length that is no length (infinite,
    /// negative, past ``Bounds/duration``) as 0, a negative play count as 0, a loudness no
    /// measurement gives as not measured, a date that does not parse as 1970 (which `doctor`
    /// reports). Only an id that is no UUID makes a row unreadable.
    public init(row: Row) throws {
        let idText: String = row[0]
        guard let id = RecordingID(idText) else {
            throw CraveyError(.other, "The library database holds a malformed row (\(idText)).", advice: .checkLibrary)
        }
        let duration: Double = row[6], playCount: Int = row[10]
        self.init(id: id, type: row[1], title: row[2], notes: row[3], purpose: row[4],
                  createdAt: Self.storedDate(row[5]) ?? Date(timeIntervalSince1970: 0),
                  duration: duration.isFinite && Bounds.duration.contains(duration) ? duration : 0, filePath: row[7],
                  thumbnailPath: row[8], fileSize: row[9], playCount: max(playCount, 0),
                  lastPlayedAt: Self.storedDate(row[11]), pinnedSlot: Self.slot(row[12]), tags: ClipTags.parse(row[13]),
                  markers: ClipMarker.parse(row[14]), loudness: Self.loudness(row[15], row[16]))
    }

    /// A stored Quick Play slot; one no slot has (a database edited by hand) is none.
    static func slot(_ stored: Int?) -> Int? {
        stored.flatMap { (1...RecordingRepository.quickPlayCount).contains($0) ? $0 : nil }
    }

    /// A stored measurement: both columns set, or none (not measured); one no measurement gives
    /// is none too.
    static func loudness(_ integrated: Double?, _ truePeak: Double?) -> LoudnessMeasurement? {
        guard let integrated, let truePeak else { return nil }
        let measurement = LoudnessMeasurement(integrated: integrated, truePeak: truePeak)
        return measurement.isPlausible ? measurement : nil
    }

    /// Parses a UUID's 36 characters by hand (`UUID(uuidString:)` goes through `sscanf`), into
    /// its 16 bytes where they are (no array per row: `list` reads 100,000 of these).
    static func uuid(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &value) { value -> Bool in
                var nibble = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        guard byte == UInt8(ascii: "-") else { return false }
                        continue
                    }
                    let digit: UInt8
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                    default: return false
                    }
                    value[nibble / 2] |= nibble % 2 == 0 ? digit << 4 : digit
                    nibble += 1
                }
                return true
            }
            return parsed ? UUID(uuid: value) : nil
        }
    }

    /// A date as the library stores it: "YYYY-MM-DD HH:MM:SS.SSS" in UTC (GRDB's format), to the
    /// nearest millisecond. Written by cravey itself, not by GRDB's date formatter (which cuts the
    /// fraction short, so 12.123 stored as a `Double` just under it would read back as 12.122): a
    /// date stored, read back and stored again keeps its text, and the clip's record
    /// (``ClipRecord``), which rounds the same way, keeps the same millisecond.
    package static func storedText(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }

    /// Parses GRDB's stored date text, "YYYY-MM-DD HH:MM:SS.SSS" in UTC; nil for anything else.
    static func storedDate(_ text: String?) -> Date? {
        guard var text else { return nil }
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count >= 19 else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<start + count {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  (1...12).contains(month) else { return nil }
            var fraction = 0.0
            if bytes.count > 20, bytes[19] == UInt8(ascii: "."), let digits = number(20, bytes.count - 20) {
                fraction = Double(digits) / pow(10, Double(bytes.count - 20))
            }
            // Days from the civil date (Howard Hinnant's algorithm).
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction)
        }
    }
}
