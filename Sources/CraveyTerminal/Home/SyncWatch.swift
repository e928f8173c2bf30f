import CraveyCore
import Foundation

/// Tells the home screen when something landed in the sync folder the library syncs with
/// (docs/sync.md): inotify (``FolderWatch``) on its `devices/` (a new device appears), each other
/// device's folder, its `changes/` and `media/` (a change file or a blob given its name, as
/// Syncthing gives one once it is whole), and `inbox/`. This library's own device folder is left
/// out: its sends would wake it. No timer: the screen sleeps until the kernel says a name there
/// changed, then merges (``SyncWork``).
final class SyncWatch {
    private let watch: FolderWatch
    /// The sync folder, and this library's device folder's name (left out).
    let folder: URL
    private let own: String

    /// Watches the sync folder `library` syncs with; nil when it syncs with none, or the folder
    /// cannot be watched (not there: a USB stick unplugged; no inotify).
    init?(_ library: RecordingLibrary) {
        guard let joined = try? library.sync.joined(),
              let watch = FolderWatch(joined.folder.appendingPathComponent("devices")) else { return nil }
        (self.watch, folder, own) = (watch, joined.folder, joined.device.hex)
        rescan()
    }

    /// The inotify descriptor, to poll.
    var descriptor: Int32 { watch.descriptor }

    /// Reads the events waiting, without blocking, and watches the device folders made since;
    /// true when something landed (or left, or the folder itself went).
    func changed() -> Bool {
        let names = watch.drain()
        rescan()
        return !names.isEmpty
    }

    /// Watches `devices/`, `inbox/` and each other device's folders, again where they were
    /// (watching a folder twice is once): a device's folders made since, and a folder that was
    /// gone and is back (a USB stick), are watched from now on.
    func rescan() {
        var wanted = ["devices", "inbox"]
        let devices = folder.appendingPathComponent("devices")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: devices.path)) ?? [] where name != own && SyncDevice(hex: name) != nil {
            wanted += ["devices/\(name)", "devices/\(name)/changes", "devices/\(name)/media"]
        }
        for path in wanted { watch.add(folder.appendingPathComponent(path)) }
    }
}
