@testable import CraveyCore
import Foundation
import Testing

/// The rules a synced library merges by (docs/sync.md), on changes made in process: no folder,
/// no file, no process. Whatever the order, the repeats and the cuts, one state.
@Suite("Sync: the rules that lose nothing")
struct SyncStateTests {
    let laptop = SyncDevice(UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!)
    let desktop = SyncDevice(UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!)
    let clip = RecordingID()

    /// A change of `device`'s, its `file`th, made at `milliseconds` of wall time.
    func change(_ device: SyncDevice, _ file: UInt64, at milliseconds: Int64, _ kind: SyncChange.Kind, clip: RecordingID? = nil) -> SyncChange {
        SyncChange(id: .init(device: device, file: file, index: 0), time: SyncTime(milliseconds: milliseconds, counter: 0, device: device),
                   clip: clip ?? self.clip, kind: kind)
    }

    var made: SyncChange.Kind {
        .clip(type: .audio, createdAt: Date(timeIntervalSince1970: 1_700_000_000),
              media: .init(file: .init(device: laptop, id: UUID(), size: 100, sha256: "00"), duration: 5))
    }

    /// The state of `changes` merged in the given order.
    func merged(_ changes: [SyncChange]) -> SyncState {
        var state = SyncState()
        for change in changes { state.merge(change) }
        return state
    }

    @Test("one inbox file imported on two machines at once is one clip: its two clip changes (one id, each machine's own media) make it once, the later media kept, the plays of both added up and the later title, in either order")
    func sameClipFromTwoMachines() {
        let media = { (device: SyncDevice) in SyncChange.Media(file: .init(device: device, id: UUID(), size: 100, sha256: "00"), duration: 5) }
        let made = Date(timeIntervalSince1970: 1_700_000_000)
        let changes = [change(laptop, 1, at: 10, .clip(type: .audio, createdAt: made, media: media(laptop))),
                       change(laptop, 2, at: 11, .field(.title, "Voice memo")),
                       change(desktop, 1, at: 12, .clip(type: .audio, createdAt: made, media: media(desktop))),
                       change(desktop, 2, at: 13, .field(.title, "Voice memo")),
                       change(laptop, 3, at: 20, .play(id: UUID(), at: Date(), completed: true)),
                       change(desktop, 3, at: 21, .play(id: UUID(), at: Date(), completed: false)),
                       change(desktop, 4, at: 30, .field(.title, "From the phone"))]
        let one = merged(changes), other = merged(changes.reversed())
        #expect(one == other)
        #expect(one.clips.count == 1 && one.clips[clip]?.isMade == true)
        #expect(one.clips[clip]?.made?.value == .init(type: .audio, createdAt: made))
        #expect(one.clips[clip]?.media?.value.file.device == desktop, "the later clip change's media")
        #expect(one.clips[clip]?.playCount == 2)
        #expect(one.clips[clip]?.fields[.title]?.value == "From the phone")
    }

    @Test("two machines' offline plays add up; a play merged twice (a repeat, a conflict copy) counts once")
    func playsAddUp() {
        let plays = [change(laptop, 2, at: 10, .play(id: UUID(), at: Date(), completed: true)),
                     change(desktop, 1, at: 11, .play(id: UUID(), at: Date(), completed: false)),
                     change(desktop, 2, at: 12, .play(id: UUID(), at: Date(), completed: true))]
        let state = merged([change(laptop, 1, at: 1, made)] + plays + plays)
        #expect(state.clips[clip]?.playCount == 3)
    }

    @Test("a field takes the change made last, whichever is merged first; a machine whose clock is behind orders its change after those it has seen")
    func lastChangeWins() {
        let early = change(laptop, 2, at: 100, .field(.title, "Morning"))
        let late = change(desktop, 1, at: 200, .field(.title, "Evening"))
        #expect(merged([early, late]).clips[clip]?.fields[.title]?.value == "Evening")
        #expect(merged([late, early]).clips[clip]?.fields[.title]?.value == "Evening")

        // A laptop whose clock is an hour behind, after it has merged the desktop's change
        var clock = SyncClock(device: laptop)
        let taken = clock.merge(late.time, wall: Date(timeIntervalSince1970: 0.2))
        #expect(taken)
        let after = clock.now(Date(timeIntervalSince1970: 0.2 - 3600))
        #expect(after > late.time)
        let fixed = SyncChange(id: .init(device: laptop, file: 3, index: 0), time: after, clip: clip, kind: .field(.title, "Fixed"))
        #expect(merged([fixed, late, early]).clips[clip]?.fields[.title]?.value == "Fixed")
    }

    @Test("a clock more than a day ahead is refused; a counter at its end moves to the next millisecond, never back")
    func clockBounds() {
        var clock = SyncClock(device: laptop)
        let wall = Date(timeIntervalSince1970: 1_800_000_000)
        let century = SyncTime(milliseconds: SyncClock.milliseconds(wall) + 100 * 365 * 86_400_000, counter: 0, device: desktop)
        let refused = !clock.merge(century, wall: wall)
        #expect(refused)
        let now = clock.now(wall)
        #expect(now.milliseconds == SyncClock.milliseconds(wall))
        let full = SyncTime(milliseconds: SyncClock.milliseconds(wall), counter: .max, device: desktop)
        let fullTaken = clock.merge(full, wall: wall)
        #expect(fullTaken)
        let next = clock.now(wall)
        #expect(next > full && next.milliseconds == full.milliseconds + 1)
    }

    @Test("a tag added on one machine while another removes it stays; a remove of the adds it saw takes them away")
    func addBeatsRemove() {
        let (first, second) = (UUID(), UUID())
        let addLaptop = change(laptop, 2, at: 10, .tagAdded("calm", add: first))
        let removeDesktop = change(desktop, 1, at: 20, .tagRemoved("calm", adds: [first]))
        let addAgain = change(laptop, 3, at: 15, .tagAdded("calm", add: second))
        #expect(merged([addLaptop, removeDesktop]).clips[clip]?.tags == [])
        #expect(merged([removeDesktop, addAgain, addLaptop]).clips[clip]?.tags == ["calm"])
    }

    @Test("a delete is final: an edit, a play or a marker made meanwhile on another machine, merged before or after it, does not bring the clip back")
    func deleteIsFinal() {
        let delete = change(laptop, 2, at: 10, .delete)
        let edits = [change(desktop, 1, at: 50, .field(.title, "Still here?")),
                     change(desktop, 2, at: 60, .play(id: UUID(), at: Date(), completed: true)),
                     change(desktop, 3, at: 70, .markerAdded(id: UUID(), milliseconds: 500, label: nil))]
        let made = change(laptop, 1, at: 1, self.made)
        for order in [[made, delete] + edits, edits + [delete, made], [made] + edits + [delete]] {
            let state = merged(order)
            #expect(state.clips[clip] == nil && state.deleted == [clip])
        }
    }

    @Test("markers are added and removed each by its id; of two at one millisecond, the one added last shows")
    func markersById() {
        let (kept, gone, twin) = (UUID(), UUID(), UUID())
        let state = merged([change(laptop, 1, at: 1, .markerAdded(id: kept, milliseconds: 1000, label: "a")),
                            change(laptop, 2, at: 2, .markerAdded(id: gone, milliseconds: 2000, label: "b")),
                            change(desktop, 1, at: 3, .markerRemoved(id: gone)),
                            change(desktop, 2, at: 4, .markerAdded(id: twin, milliseconds: 1000, label: "c"))])
        #expect(state.clips[clip]?.liveMarkers == [ClipMarker(milliseconds: 1000, label: "c")])
    }

    @Test("a Quick Play slot takes the last pin; a deleted clip's slot is empty")
    func pins() {
        let other = RecordingID()
        let state = merged([change(laptop, 1, at: 10, .pin(slot: 1, clip: clip), clip: nil),
                            change(desktop, 1, at: 20, .pin(slot: 1, clip: other), clip: nil),
                            change(laptop, 2, at: 15, .pin(slot: 2, clip: clip), clip: nil),
                            change(laptop, 3, at: 30, .delete)])
        #expect(state.quickPlay == [1: other])
    }

    @Test("thousands of random changes from three devices, merged in random orders, repeated and cut, give one state", arguments: 1...12)
    func converges(seed: UInt64) {
        var random = SplitMix(seed)
        let changes = RandomChanges.make(count: 3000, devices: 3, clips: 40, using: &random)
        let inOrder = merged(changes)
        var shuffled = changes + changes.filter { _ in random.next() % 4 == 0 }
        shuffled.shuffle(using: &random)
        let cut = Int(random.next() % UInt64(changes.count))
        var twice = merged(Array(shuffled[..<cut]))
        for change in shuffled[cut...].reversed() { twice.merge(change) }
        for change in changes.shuffled(using: &random) { twice.merge(change) }
        #expect(merged(shuffled) == inOrder)
        #expect(twice == inOrder)
        #expect(inOrder.merged.count == changes.count)
        // (What the changes did: some clips deleted, the others made, played and tagged.)
        #expect(!inOrder.deleted.isEmpty && inOrder.clips.values.contains { $0.isMade && $0.playCount > 0 && !$0.tags.isEmpty })
    }
}

/// A seeded generator (SplitMix64), so a failing seed fails again.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Changes as devices make them: each device's clock runs (some ahead, some behind the others),
/// its files are numbered, and it removes only tag adds it has seen.
enum RandomChanges {
    static func make(count: Int, devices: Int, clips: Int, using random: inout SplitMix) -> [SyncChange] {
        let ids = (0..<clips).map { _ in RecordingID(UUID(uuid: uuidBytes(&random))) }
        var clocks = (0..<devices).map { index in
            (clock: SyncClock(device: SyncDevice(UUID(uuid: uuidBytes(&random)))), skew: Int64(index) * 3_600_000 - 3_600_000, file: UInt64(0))
        }
        var adds: [String: [UUID]] = [:]
        var changes: [SyncChange] = []
        var wall: Int64 = 1_700_000_000_000
        for _ in 0..<count {
            wall += Int64(random.next() % 5_000)
            let device = Int(random.next() % UInt64(devices))
            clocks[device].file += 1
            let time = clocks[device].clock.now(Date(timeIntervalSince1970: Double(wall + clocks[device].skew) / 1000))
            let clip = ids[Int(random.next() % UInt64(clips))]
            let tag = ["calm", "walk", "call"][Int(random.next() % 3)]
            let kind: SyncChange.Kind
            switch random.next() % 20 {
            case 0..<3:
                kind = .clip(type: .audio, createdAt: Date(timeIntervalSince1970: Double(wall) / 1000),
                             media: .init(file: .init(device: time.device, id: UUID(uuid: uuidBytes(&random)), size: 10, sha256: "aa"), duration: 3))
            case 3..<6: kind = .field([.title, .notes, .purpose][Int(random.next() % 3)], "v\(random.next() % 100)")
            case 6..<10: kind = .play(id: UUID(uuid: uuidBytes(&random)), at: Date(timeIntervalSince1970: Double(wall) / 1000), completed: random.next() % 2 == 0)
            case 10..<13:
                let add = UUID(uuid: uuidBytes(&random))
                adds[tag, default: []].append(add)
                kind = .tagAdded(tag, add: add)
            case 13..<15: kind = .tagRemoved(tag, adds: Set((adds[tag] ?? []).filter { _ in random.next() % 2 == 0 }))
            case 15: kind = .markerAdded(id: UUID(uuid: uuidBytes(&random)), milliseconds: Int64(random.next() % 4) * 250, label: "m")
            case 16: kind = .words(Data("w\(random.next() % 10)".utf8))
            case 17: kind = .media(.init(file: .init(device: time.device, id: UUID(uuid: uuidBytes(&random)), size: 9, sha256: "bb"), duration: 2))
            case 18: kind = .pin(slot: 1 + Int(random.next() % 3), clip: clip)
            default: kind = random.next() % 20 == 0 ? .delete : .field(.title, "t\(random.next() % 10)")
            }
            let isPin = if case .pin = kind { true } else { false }
            changes.append(SyncChange(id: .init(device: time.device, file: clocks[device].file, index: 0), time: time,
                                      clip: isPin ? nil : clip, kind: kind))
        }
        return changes
    }

    static func uuidBytes(_ random: inout SplitMix) -> uuid_t {
        let (a, b) = (random.next(), random.next())
        return withUnsafeBytes(of: (a, b)) { bytes in
            (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
             bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
        }
    }
}
