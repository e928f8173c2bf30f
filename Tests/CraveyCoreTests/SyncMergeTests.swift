@testable import CraveyCore
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// Merging (docs/sync.md), in process on real SQLite libraries sharing one real folder: each
/// merges the others' change files into its rows by the rules, its media copied in, and its
/// merge is not sent back as its own changes; libraries that merged every change hold the same
/// rows, in whatever order they merged, repeated or cut; bad input changes nothing.
@Suite("Sync: other devices' changes merged", .temporaryFiles)
struct SyncMergeTests {
    typealias Capture = SyncCaptureTests

    /// What a library holds that sync keeps in step: each clip's fields, plays, tags, pin,
    /// markers and media (its SHA-256), and the clips deleted.
    struct Snapshot: Equatable, CustomStringConvertible {
        struct Clip: Equatable {
            var type: RecordingType
            var title: String
            var notes: String?
            var purpose: RecordingPurpose?
            var createdAt: Date
            var duration: Double
            var plays: Int
            var playTimes: [Date]
            var tags: [String]
            var pinnedSlot: Int?
            var markers: [ClipMarker]
            var media: String
            var waveform: String?
        }

        var clips: [String: Clip]
        var deleted: Set<String>

        var description: String {
            clips.sorted { $0.key < $1.key }.map { id, clip in
                "\(id.prefix(8)) \(clip.title) n=\(clip.notes ?? "-") p=\(clip.purpose?.rawValue ?? "-") plays=\(clip.plays) tags=\(clip.tags) pin=\(clip.pinnedSlot.map(String.init) ?? "-") markers=\(clip.markers.map(\.milliseconds)) media=\(clip.media.prefix(8))"
            }.joined(separator: "\n") + "\ndeleted: \(deleted.map { $0.prefix(8) }.sorted())"
        }
    }

    static func snapshot(_ library: RecordingLibrary) throws -> Snapshot {
        var clips: [String: Snapshot.Clip] = [:]
        for recording in try library.recordings() {
            let files = ClipFiles(recording)
            let media = try Data(contentsOf: library.url.appendingPathComponent(files.media().path))
            let waveform = try? Data(contentsOf: library.url.appendingPathComponent(files.file(.waveform)!.path))
            #expect(Int64(media.count) == recording.fileSize, "the row's size is its media's")
            clips[recording.id.description] = Snapshot.Clip(
                type: recording.type, title: recording.title, notes: recording.notes, purpose: recording.purpose, createdAt: recording.createdAt,
                duration: recording.duration, plays: recording.playCount, playTimes: try library.plays(of: recording.id).map(\.playedAt).sorted(),
                tags: recording.tags, pinnedSlot: recording.pinnedSlot, markers: recording.markers, media: SHA256.of(media),
                waveform: waveform.map(SHA256.of))
        }
        let deleted = try library.store.read { db in try String.fetchSet(db, sql: "SELECT clip FROM syncTombstone") }
        return Snapshot(clips: clips, deleted: deleted)
    }

    /// Libraries joined to one new folder, the first setting it up.
    static func joined(_ count: Int) throws -> (URL, [RecordingLibrary]) {
        let folder = try Capture.folder()
        let libraries = try (0..<count).map { _ in try Capture.library() }
        for library in libraries { _ = try library.sync.join(folder, passphrase: Capture.passphrase, workFactor: 10) }
        return (folder, libraries)
    }

    @Test("a clip made on one library is merged into the other: its media, waveform and thumbnail copied in, its title, notes, purpose, tags, markers, plays and pin; the merge is not sent back as the other's changes, and a second merge merges nothing")
    func clipArrives() throws {
        let (_, libraries) = try Self.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        let clip = try Capture.save("Breathe", in: a, type: .video, bytes: "a video's bytes")
        try a.edit(clip.id) { $0.notes = "before bed"; $0.purpose = .reflection }
        try a.tag(clip.id, adding: ["calm", "night"])
        _ = try a.markers.add(to: clip.id, at: 1.5, label: "breathe in")
        _ = try a.countPlay(of: clip, completed: true)
        _ = try a.pin(clip.id, slot: 2)

        let sentBefore = try a.sync.status()!.devices[try a.sync.status()!.device]
        let merging = try b.sync.merge()
        #expect(merging.files == 6 && merging.blobs == 1 && merging.waiting == 0 && merging.refused == 0)
        let arrived = try #require(try b.recording(clip.id))
        #expect(arrived.title == "Breathe" && arrived.notes == "before bed" && arrived.purpose == .reflection)
        #expect(arrived.tags == ["calm", "night"] && arrived.playCount == 1 && arrived.pinnedSlot == 2)
        #expect(arrived.markers == [ClipMarker(milliseconds: 1500, label: "breathe in")])
        #expect(try Self.snapshot(a) == (try Self.snapshot(b)))
        let thumbnail = try Data(contentsOf: b.url.appendingPathComponent(try #require(arrived.thumbnailPath)))
        #expect(thumbnail == Data("jpeg".utf8))
        // Nothing of the merge goes back as B's own changes; A has nothing new of B to merge.
        let status = try #require(try b.sync.status())
        #expect(status.devices[status.device] == 0, "B has written no change file: it joined with no clip, and its merge is not its change")
        #expect(try Capture.outbox(b).isEmpty)
        #expect(try b.sync.merge() == .init())
        #expect(try a.sync.merge() == .init())
        #expect(try a.sync.status()!.devices[try a.sync.status()!.device] == sentBefore)
    }

    @Test("two libraries' offline plays add up; retitled on both, the later title wins on both; edited on one while deleted on the other, the clip stays deleted on both")
    func rulesOnTwoLibraries() throws {
        let (folder, libraries) = try Self.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        let clip = try Capture.save("Breathe", in: a)
        let doomed = try Capture.save("Walk", in: a)
        try RecordingLibrary.settle(libraries)
        try Capture.away(folder) {
            _ = try a.countPlay(of: clip)
            _ = try a.countPlay(of: clip)
            _ = try b.countPlay(of: try #require(try b.recording(clip.id)))
            try a.edit(clip.id) { $0.title = "Slow breath" }
            try b.edit(clip.id) { $0.title = "Deep breath" }  // made last
            try b.edit(doomed.id) { $0.title = "Run" }
            try b.tag(doomed.id, adding: ["morning"])
            _ = try a.delete(doomed.id)
        }
        try RecordingLibrary.settle(libraries)
        let (left, right) = (try Self.snapshot(a), try Self.snapshot(b))
        #expect(left == right, "\(left)\n---\n\(right)")
        #expect(left.clips[clip.id.description]?.plays == 3 && left.clips[clip.id.description]?.title == "Deep breath")
        #expect(left.clips[doomed.id.description] == nil && left.deleted == [doomed.id.description])
        #expect(!FileManager.default.fileExists(atPath: b.url.appendingPathComponent(ClipFiles(doomed).media().path).path), "its media left B too")
    }

    @Test("a trim on one library replaces the media on the other, its plays kept; words set on one are the other's")
    func newMedia() throws {
        let (_, libraries) = try Self.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        let clip = try Capture.save("Breathe", in: a, bytes: "the whole clip")
        _ = try a.countPlay(of: clip)
        try RecordingLibrary.settle(libraries)
        _ = try b.countPlay(of: try #require(try b.recording(clip.id)))
        try Capture.replaceMedia(of: clip, in: a, with: "cut")
        try a.store.write { tx in _ = try tx.store(Data("spoken".utf8), as: .transcript, of: ClipFiles(clip)) }
        try RecordingLibrary.settle(libraries)
        let trimmed = try #require(try b.recording(clip.id))
        #expect(trimmed.duration == 2.5 && trimmed.playCount == 2)
        #expect(try Data(contentsOf: b.url.appendingPathComponent(ClipFiles(clip).media().path)) == Data("cut".utf8))
        #expect(try Data(contentsOf: b.url.appendingPathComponent(ClipFiles(clip).file(.transcript)!.path)) == Data("spoken".utf8))
        #expect(try Self.snapshot(a) == (try Self.snapshot(b)))
    }

    @Test("a change file whose clip has not arrived, or whose media is not there yet, waits and is merged once they are; nothing of it is applied meanwhile")
    func waitsForWhatItNeeds() throws {
        let (folder, libraries) = try Self.joined(3)
        let (a, b, c) = (libraries[0], libraries[1], libraries[2])
        let clip = try Capture.save("Breathe", in: a)
        try b.sync.merge()
        try b.edit(clip.id) { $0.title = "Slow breath" }  // B's file names a clip C has not had yet
        // A's media not there yet (Syncthing has not brought it): C merges nothing of A's, nor B's edit.
        let media = folder.appendingPathComponent("devices/\(try a.sync.status()!.device.hex)/media")
        let aside = folder.appendingPathComponent("media-aside")
        try FileManager.default.moveItem(at: media, to: aside)
        let waiting = try c.sync.merge()
        #expect(waiting.files == 0 && waiting.waiting == 2, "A's file waits for its media, B's edit for the clip: \(waiting)")
        #expect(try c.recording(clip.id) == nil)
        try FileManager.default.moveItem(at: aside, to: media)
        let merged = try c.sync.merge()
        #expect(merged.files == 2 && merged.waiting == 0 && merged.blobs == 1)
        #expect(try c.recording(clip.id)?.title == "Slow breath")
    }

    @Test("a clip saved and deleted, or saved and trimmed, while the folder could not be written (its first media never sent) holds nothing back: the deleted one never arrives, the trimmed one arrives with its new media")
    func firstMediaNeverSent() throws {
        let (folder, libraries) = try Self.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        var (deleted, trimmed): (Recording?, Recording?) = (nil, nil)
        try Capture.away(folder) {
            deleted = try Capture.save("Gone", in: a)
            _ = try a.delete(deleted!.id)
            trimmed = try Capture.save("Cut", in: a, bytes: "the whole take")
            try Capture.replaceMedia(of: trimmed!, in: a, with: "the cut")
        }
        // Sent: the trimmed clip's new media, and its waveform twice (its first blob, and the one
        // its new media names); neither clip's first media, which went before it could be sent.
        #expect(try a.sync.send().blobs == 3)
        let merging = try b.sync.merge()
        #expect(merging.waiting == 0 && merging.blobs == 1, "\(merging)")
        let (gone, cut) = (try #require(deleted), try #require(trimmed))
        #expect(try b.recording(gone.id) == nil)
        let arrived = try #require(try b.recording(cut.id))
        #expect(arrived.title == "Cut" && arrived.duration == 2.5)
        #expect(try Data(contentsOf: b.url.appendingPathComponent(ClipFiles(arrived).media().path)) == Data("the cut".utf8))
        #expect(try Self.snapshot(a) == (try Self.snapshot(b)))
    }

    @Test("media in the folder that is not what its change names (a byte changed) is not taken: its change file waits, said with why by --status, and is merged once the media is whole")
    func damagedMedia() throws {
        let (folder, libraries) = try Self.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        let clip = try Capture.save("Breathe", in: a, bytes: "the recording's bytes")
        let media = folder.appendingPathComponent("devices/\(try a.sync.status()!.device.hex)/media")
        let blobs = try FileManager.default.contentsOfDirectory(at: media, includingPropertiesForKeys: nil)
        let whole = try blobs.map { try Data(contentsOf: $0) }
        for blob in blobs {
            var bytes = try Data(contentsOf: blob)
            bytes[bytes.count - 10] ^= 1
            try bytes.write(to: blob)
        }
        let merging = try b.sync.merge()
        #expect(merging.files == 0 && merging.waiting == 1 && merging.refused == 1, "\(merging)")
        #expect(try b.recording(clip.id) == nil && b.recordings().isEmpty)
        #expect(try b.sync.status()?.refused.first?.reason.contains("not what it names") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.url.appendingPathComponent("Recordings").path).filter { !$0.hasPrefix(".") && $0 != "Thumbnails" }.isEmpty,
                "nothing of it left in the library")
        for (blob, bytes) in zip(blobs, whole) { try bytes.write(to: blob) }
        #expect(try b.sync.merge().files == 1)
        #expect(try b.recording(clip.id) != nil && b.sync.status()?.refused.isEmpty == true)
    }

    @Test("a library copied beside itself takes a new device before it merges, and merges what the original does after the copy as another library's changes; the original merges the copy's")
    func copiedLibraryMerges() throws {
        let (_, libraries) = try Self.joined(1)
        let library = libraries[0]
        let clip = try Capture.save("Breathe", in: library)
        let copy = temporaryLibrary()
        try FileManager.default.copyItem(at: library.url, to: copy)
        let copied = try RecordingLibrary(at: copy)
        #expect(try copied.sync.merge() == .init(), "its own changes, as the original's, are merged already")
        _ = try library.countPlay(of: clip)
        try library.edit(clip.id) { $0.title = "Original" }
        _ = try copied.countPlay(of: try #require(try copied.recording(clip.id)))
        #expect(try copied.sync.merge().files == 2)
        #expect(try library.sync.merge().files == 1)
        let (left, right) = (try Self.snapshot(library), try Self.snapshot(copied))
        #expect(left == right && left.clips[clip.id.description]?.plays == 2 && left.clips[clip.id.description]?.title == "Original", "\(left)\n---\n\(right)")
    }

    /// Writes `plain` as change file `number` of `device`, encrypted to the folder's key as
    /// cravey writes them: a file another (or a crafted) device put there.
    static func craft(_ plain: Data, as number: UInt64, of device: SyncDevice, in library: RecordingLibrary) throws {
        let (folder, _) = try #require(try library.sync.joinedFolder())
        let place = folder.changes(of: device)
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        try FileStorageManager.writeAtomically(to: place.appendingPathComponent(SyncFolder.name(number)), doing: "craft") { file in
            _ = try file.seek(to: Int64(AgeWriter.recipientHeaderSize), from: .start)
            let writer = try AgeWriter(recipient: folder.key.recipient, to: file.writeAll)
            try plain.withUnsafeBytes(writer.write)
            try writer.finish { header in
                _ = try file.seek(to: 0, from: .start)
                try file.writeAll(header)
            }
        }
    }

    @Test("bad input changes nothing: bad JSON, a 1 GB change file, a change another device's, a clock a century ahead (refused, reported by --status, its later files waiting behind it), a change for a clip nobody has (waits), a media blob named with ../ (does not decode)")
    func badInput() throws {
        let (_, libraries) = try Self.joined(1)
        let library = libraries[0]
        let clip = try Capture.save("Breathe", in: library)
        let before = try Self.snapshot(library)
        let time = { (device: SyncDevice, milliseconds: Int64) in SyncTime(milliseconds: milliseconds, counter: 0, device: device) }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func change(_ device: SyncDevice, _ file: UInt64, _ milliseconds: Int64, clip: RecordingID?, _ kind: SyncChange.Kind) -> SyncChange {
            SyncChange(id: .init(device: device, file: file, index: 0), time: time(device, milliseconds), clip: clip, kind: kind)
        }
        // Bad JSON
        let garbled = SyncDevice()
        try Self.craft(Data("[{\"not\": a change".utf8), as: 1, of: garbled, in: library)
        // A century ahead, then a file behind it
        let ahead = SyncDevice()
        try Self.craft(try SyncChange.encoder.encode([change(ahead, 1, now + 100 * 365 * 86_400_000, clip: clip.id, .field(.title, "Forever"))]),
                       as: 1, of: ahead, in: library)
        try Self.craft(try SyncChange.encoder.encode([change(ahead, 2, now, clip: clip.id, .field(.notes, "behind it"))]), as: 2, of: ahead, in: library)
        // A change for a clip nobody has
        let stranger = SyncDevice()
        try Self.craft(try SyncChange.encoder.encode([change(stranger, 1, now, clip: RecordingID(), .field(.title, "Nobody's"))]), as: 1, of: stranger, in: library)
        // A blob named ../ (a media change whose blob id is a path)
        let climber = SyncDevice()
        var json = String(decoding: try SyncChange.encoder.encode([change(climber, 1, now, clip: clip.id, .media(.init(
            file: .init(device: climber, id: UUID(), size: 3, sha256: ""), duration: 1)))]), as: UTF8.self)
        json = json.replacingOccurrences(of: #"("id":")[0-9A-F-]{36}"#, with: "$1../../../etc/passwd", options: .regularExpression)
        try Self.craft(Data(json.utf8), as: 1, of: climber, in: library)
        // Another device's change in this one's file
        let impostor = SyncDevice()
        try Self.craft(try SyncChange.encoder.encode([change(SyncDevice(), 1, now, clip: clip.id, .field(.title, "Impostor"))]), as: 1, of: impostor, in: library)

        // A change file of 1 GB (sparse): refused before it is read
        let huge = SyncDevice()
        let (folder, _) = try #require(try library.sync.joinedFolder())
        try FileManager.default.createDirectory(at: folder.changes(of: huge), withIntermediateDirectories: true)
        let hugeFile = folder.changes(of: huge).appendingPathComponent(SyncFolder.name(1))
        _ = FileManager.default.createFile(atPath: hugeFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: hugeFile)
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()

        let merging = try library.sync.merge()
        #expect(merging.files == 0 && merging.refused == 5 && merging.waiting == 1, "\(merging)")
        #expect(try Self.snapshot(library) == before)
        #expect(try Capture.outbox(library).isEmpty)
        let refused = try #require(try library.sync.status()).refused
        #expect(Set(refused.map(\.device)) == [garbled, ahead, climber, impostor, huge])
        #expect(refused.first { $0.device == huge }?.reason.contains("larger than any file cravey writes there") == true)
        #expect(refused.first { $0.device == ahead }?.reason.contains("more than a day ahead") == true)
        // Merged again, the same: nothing applied, the same refused.
        #expect(try library.sync.merge() == merging)
        #expect(try Self.snapshot(library) == before)
    }

    @Test("random changes on two and three libraries sharing one folder (saves, edits, plays, tags, pins, markers, deletes, trims), merged in random orders, merges repeated and cut, end in the same rows on every library", arguments: [(2, 1), (2, 2), (3, 3), (3, 4)])
    func converges(libraryCount: Int, seed: UInt64) throws {
        var random = SplitMix(seed)
        let (folder, libraries) = try Self.joined(libraryCount)
        let tags = ["calm", "night", "work"]
        for step in 0..<150 {
            let library = libraries[Int.random(in: 0..<libraries.count, using: &random)]
            let clips = try library.recordings()
            let clip = clips.isEmpty ? nil : clips[Int.random(in: 0..<clips.count, using: &random)]
            switch (Int.random(in: 0..<12, using: &random), clip) {
            case (0, _), (_, nil):
                try Capture.save("Clip \(step)", in: library, bytes: "media of step \(step)")
            case (1, let clip?):
                try library.edit(clip.id) { $0.title = "Title \(step)" }
            case (2, let clip?):
                try library.edit(clip.id) { $0.notes = Bool.random(using: &random) ? nil : "notes \(step)"; $0.purpose = RecordingPurpose.allCases.randomElement(using: &random) }
            case (3, let clip?), (4, let clip?):
                _ = try library.countPlay(of: clip, completed: Bool.random(using: &random))
            case (5, let clip?):
                try library.tag(clip.id, adding: [tags.randomElement(using: &random)!])
            case (6, let clip?):
                try library.tag(clip.id, removing: [tags.randomElement(using: &random)!])
            case (7, let clip?):
                if Bool.random(using: &random) { _ = try library.pin(clip.id, slot: Int.random(in: 1...3, using: &random)) } else if clip.pinnedSlot != nil { _ = try library.unpin(clip.id) }
            case (8, let clip?):
                if clip.markers.isEmpty || Bool.random(using: &random) {
                    _ = try? library.markers.add(to: clip.id, at: Double(Int.random(in: 0..<4, using: &random)), label: "m\(step)")  // (one past a trimmed clip's end is refused)
                } else {
                    _ = try library.markers.remove(1, of: clip.id)
                }
            case (9, let clip?):
                _ = try library.delete(clip.id)
            case (10, let clip?):
                try Capture.replaceMedia(of: clip, in: library, with: "trimmed at step \(step)")
            case (_, let clip?):
                _ = clip
                let merger = libraries[Int.random(in: 0..<libraries.count, using: &random)]
                if Bool.random(using: &random) {
                    // Repeated: forgets having merged some files, which merge again and change nothing.
                    try merger.store.write { tx in try tx.db.execute(sql: "UPDATE syncMerged SET file = max(0, file - 2)") }
                }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    // Cut: the folder not there for a while; what is made meanwhile waits.
                    try Capture.away(folder) { _ = try? merger.sync.merge() }
                } else {
                    try merger.sync.merge()
                }
            }
        }
        try RecordingLibrary.settle(libraries)
        let first = try Self.snapshot(libraries[0])
        #expect(!first.clips.isEmpty && !first.deleted.isEmpty && first.clips.values.contains { $0.plays > 0 || !$0.tags.isEmpty }, "\(first)")
        for library in libraries.dropFirst() {
            let other = try Self.snapshot(library)
            #expect(first == other, "\(first)\n---\n\(other)")
        }
        // And the rows are what SyncState's rules make of every change in the folder.
        let (sync, _) = try #require(try libraries[0].sync.joinedFolder())
        var state = SyncState()
        for (device, last) in try sync.devices() where last > 0 {
            for number in 1...last { for change in try #require(try sync.read(number, of: device)) { state.merge(change) } }
        }
        #expect(Set(state.deleted.map(\.description)) == first.deleted)
        let made = state.clips.filter { $0.value.isMade }
        #expect(Set(made.keys.map(\.description)) == Set(first.clips.keys))
        for (id, clip) in made {
            guard let row = first.clips[id.description] else { continue }
            let fields = (clip.fields[.title]?.value ?? nil ?? "", clip.fields[.notes]?.value ?? nil, (clip.fields[.purpose]?.value ?? nil).flatMap(RecordingPurpose.init))
            #expect(fields == (row.title, row.notes, row.purpose), "\(id): \(fields) by the rules")
            let rest = (clip.playCount, clip.tags, clip.liveMarkers, clip.media?.value.file.sha256 ?? "")
            #expect(rest == (row.plays, row.tags, row.markers, row.media), "\(id): \(rest) by the rules")
        }
        let pins = Dictionary(uniqueKeysWithValues: first.clips.compactMap { id, clip in clip.pinnedSlot.map { ($0, id) } })
        #expect(pins == state.quickPlay.mapValues(\.description), "the Quick Play slots")
    }
}
