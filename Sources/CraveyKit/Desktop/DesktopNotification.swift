import Foundation

/// A desktop notification (org.freedesktop.Notifications) from cravey, as discreet as the play's:
/// it says "cravey" and what happened, never a clip's words. Best effort: without a session bus
/// or a notification server nothing is shown and nothing is said.
package struct DesktopNotification: Sendable {
    /// The server's id of the notification shown, which a later one replaces.
    private let id: UInt32

    /// Shows `body` under the summary "cravey", in place of `replacing` when given; nil when
    /// nothing could be shown. Blocking (up to a second for the server's reply), on a thread of
    /// its own.
    package static func show(_ body: String, replacing previous: DesktopNotification? = nil) async -> DesktopNotification? {
        guard SessionBus.exists() else { return nil }
        return try? await onDedicatedThread(named: "cravey.notify") { () throws -> DesktopNotification? in
            let bus = try SessionBus()
            let reply = try bus.call("org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                     interface: "org.freedesktop.Notifications", member: "Notify",
                                     [.string("cravey"), .uint32(previous?.id ?? 0), .string("cravey"), .string("cravey"),
                                      .string(body), .strings([]), .dictionary(["desktop-entry": .string("cravey")]),
                                      .int32(-1)], timeout: 1)
            guard case .uint32(let id)? = reply.first else { return nil }
            return DesktopNotification(id: id)
        }
    }
}
