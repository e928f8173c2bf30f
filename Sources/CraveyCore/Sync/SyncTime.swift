import Foundation

/// When a change was made, as a hybrid logical clock reads it: the wall time in milliseconds,
/// a counter for changes within one millisecond (or made while the wall clock was behind what
/// the device had already seen), and the device, which breaks every tie. Times are totally
/// ordered, the same way on every machine, and a device never reads the same time twice: so
/// "the change made last" is one change, wherever and in whatever order it is merged.
package struct SyncTime: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
    package var milliseconds: Int64
    package var counter: UInt32
    package var device: SyncDevice

    package init(milliseconds: Int64, counter: UInt32, device: SyncDevice) {
        (self.milliseconds, self.counter, self.device) = (milliseconds, counter, device)
    }

    package static func < (a: SyncTime, b: SyncTime) -> Bool {
        (a.milliseconds, a.counter) != (b.milliseconds, b.counter)
            ? (a.milliseconds, a.counter) < (b.milliseconds, b.counter)
            : a.device < b.device
    }

    package var description: String { "\(milliseconds).\(counter)@\(device)" }
}

/// A library that takes part in sync: 16 random bytes, written as 32 hex digits in the folder.
/// A library copied or restored elsewhere takes a new one, so each device's log has one writer.
package struct SyncDevice: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
    package let uuid: UUID

    package init(_ uuid: UUID = UUID()) {
        self.uuid = uuid
    }

    package static func < (a: SyncDevice, b: SyncDevice) -> Bool {
        a.hex < b.hex
    }

    /// The 32 lower-case hex digits of its bytes, its name in the folder.
    package var hex: String {
        withUnsafeBytes(of: uuid.uuid) { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
    }

    package var description: String { hex }
}

/// A device's hybrid logical clock: each reading is later than the wall time, than every
/// reading before it, and than every time merged from another device. So a machine whose clock
/// is wrong still orders its changes after those it has seen, and never reads a time twice.
package struct SyncClock: Sendable {
    package let device: SyncDevice
    /// The latest time read or merged.
    package private(set) var latest: SyncTime

    /// How far ahead of this machine's time a merged change may be (a day): one further ahead
    /// is refused, or a clock a century ahead would win every field forever.
    package static let tolerance: Int64 = 24 * 3600 * 1000

    package init(device: SyncDevice, latest: SyncTime? = nil) {
        self.device = device
        self.latest = latest ?? SyncTime(milliseconds: 0, counter: 0, device: device)
    }

    /// The time of a change made now.
    package mutating func now(_ wall: Date = Date()) -> SyncTime {
        let milliseconds = Self.milliseconds(wall)
        if milliseconds > latest.milliseconds {
            latest = SyncTime(milliseconds: milliseconds, counter: 0, device: device)
        } else if latest.counter < .max {
            latest = SyncTime(milliseconds: latest.milliseconds, counter: latest.counter + 1, device: device)
        } else {
            // (Only a merged time can have brought the counter this far: the next millisecond.)
            latest = SyncTime(milliseconds: latest.milliseconds + 1, counter: 0, device: device)
        }
        return latest
    }

    /// Takes in the time of a change merged from another device; false (and nothing taken)
    /// for one further than ``tolerance`` ahead of `wall`.
    @discardableResult
    package mutating func merge(_ time: SyncTime, wall: Date = Date()) -> Bool {
        guard time.milliseconds <= Self.milliseconds(wall) + Self.tolerance else { return false }
        if time.milliseconds > latest.milliseconds || (time.milliseconds == latest.milliseconds && time.counter > latest.counter) {
            latest = SyncTime(milliseconds: time.milliseconds, counter: time.counter, device: device)
        }
        return true
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
