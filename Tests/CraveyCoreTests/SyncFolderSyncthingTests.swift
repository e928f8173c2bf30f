@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Synchronization
import Testing

/// The sync folder carried by the real Syncthing between two devices on this machine
/// (``SyncthingDevices``), as between a person's laptop and desktop: what one writes, the other
/// joins and reads, and a file still arriving is never taken for a whole one.
extension SyncFolderTests {
    @Test("a folder set up on one device reaches the other by Syncthing and is joined there with the passphrase; change files written on both sides at once arrive and read the same, never a part of one; cravey's temporary names do not travel")
    func carriedBySyncthing() async throws {
        let devices = try await SyncthingDevices(count: 2)
        let (laptopFolder, desktopFolder) = (devices.folders[0], devices.folders[1])
        let laptop = try SyncFolder.create(at: laptopFolder, passphrase: passphrase, workFactor: 10)
        // A file being written where a file system has no unnamed files (its temporary name),
        // which the folder's .stignore keeps from travelling.
        let leftover = "devices/.\(SyncFolder.name(1)).\(UUID().uuidString).tmp"
        try Data("half-written".utf8).write(to: laptopFolder.appendingPathComponent(leftover))

        // The key file arrives; until it is whole it does not unlock.
        let arrived = Mutex<SyncFolder?>(nil)
        let passphrase = self.passphrase
        let joinedInTime = try await poll(within: 60, every: 0.1) {
            guard let joined = try? SyncFolder.join(at: desktopFolder, passphrase: passphrase) else { return false }
            arrived.withLock { $0 = joined }
            return true
        }
        #expect(joinedInTime, "the folder's key did not reach the second device:\n\(Self.tail(devices.logs))")
        let desktop = try #require(arrived.withLock { $0 })
        #expect(desktop.key == laptop.key && desktop.id == laptop.id)

        // Both write at once, each its own device's files.
        let (laptopDevice, desktopDevice) = (SyncDevice(), SyncDevice())
        let files = 1...20
        let sent: [SyncDevice: [UInt64: [SyncChange]]] = [
            laptopDevice: Dictionary(uniqueKeysWithValues: files.map { (UInt64($0), changes(laptopDevice, UInt64($0), title: "Laptop \($0)")) }),
            desktopDevice: Dictionary(uniqueKeysWithValues: files.map { (UInt64($0), changes(desktopDevice, UInt64($0), title: "Desktop \($0)")) }),
        ]
        for number in files.map(UInt64.init) {
            try laptop.write(sent[laptopDevice]![number]!, as: number, of: laptopDevice)
            try desktop.write(sent[desktopDevice]![number]!, as: number, of: desktopDevice)
        }

        // Each reads the other's as they come: a file is read whole or not at all.
        let misread = Mutex<[String]>([])
        for (reader, device) in [(desktop, laptopDevice), (laptop, desktopDevice)] {
            let all = try await poll(within: 60, every: 0.05) {
                var whole = 0
                for number in files.map(UInt64.init) {
                    // A file not there yet, or still arriving, does not authenticate: not read.
                    guard let read = try? reader.read(number, of: device) else { continue }
                    if read != sent[device]![number]! { misread.withLock { $0.append("\(device.hex) \(number)") } }
                    whole += 1
                }
                return whole == files.count
            }
            #expect(all, "not every change file arrived:\n\(Self.tail(devices.logs))")
            #expect(try reader.devices() == [laptopDevice: 20, desktopDevice: 20])
        }
        #expect(misread.withLock { $0 }.isEmpty, "read as other changes than were written: \(misread.withLock { $0 })")
        #expect(!FileManager.default.fileExists(atPath: desktopFolder.appendingPathComponent(leftover).path))
    }

    /// The end of each device's log, for a failure's message.
    static func tail(_ logs: [URL]) -> String {
        logs.map { (try? String(contentsOf: $0, encoding: .utf8))?.suffix(1_500) ?? "" }.joined(separator: "\n---\n")
    }
}
