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
            try SessionBus().notify(body: body, replacing: previous?.id ?? 0, timeout: 1).map(DesktopNotification.init(id:))
        }
    }
}
