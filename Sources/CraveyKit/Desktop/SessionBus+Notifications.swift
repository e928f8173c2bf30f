import Foundation

/// The desktop's notifications (org.freedesktop.Notifications), as cravey shows them: the app
/// "cravey", its desktop entry, and the words the caller gives (never a clip's, unless titles are
/// shown). One place for the play's notice, a toggle's and a reminder's question.
extension SessionBus {
    /// The notification server's object and interface.
    private static let notifications = (name: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications")

    /// Shows `body` under `summary` with `actions` (key, then label), in place of the
    /// notification `replacing` (0: a new one), for `expiring` milliseconds (-1: as the server
    /// likes; 0: until closed); returns its id, nil when the server gave none. Waits up to
    /// `timeout` seconds for the server. The corresponding D-Bus call is `Notify`.
    func notify(summary: String = "cravey", body: String, actions: [String] = [], replacing: UInt32 = 0,
                expiring: Int32 = -1, timeout: Double) throws(BusError) -> UInt32? {
        let reply = try call(Self.notifications.name, path: Self.notifications.path, interface: Self.notifications.name, member: "Notify",
                             [.string("cravey"), .uint32(replacing), .string("cravey"), .string(summary), .string(body), .strings(actions),
                              .dictionary(["desktop-entry": .string("cravey")]), .int32(expiring)], timeout: timeout)
        guard case .uint32(let id)? = reply.first else { return nil }
        return id
    }

    /// Closes the notification `id`, best effort (a server gone, or one that closed it already).
    /// The corresponding D-Bus call is `CloseNotification`.
    func closeNotification(_ id: UInt32) {
        _ = try? call(Self.notifications.name, path: Self.notifications.path, interface: Self.notifications.name,
                      member: "CloseNotification", [.uint32(id)], timeout: 1)
    }
}
