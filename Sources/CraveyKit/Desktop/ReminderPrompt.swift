import Foundation

/// A reminder's question on the desktop: a notification (org.freedesktop.Notifications) under
/// the summary "cravey", with the actions Play, In 10 minutes and Not today, and the answer a
/// person gives it. Discreet as the rest of the desktop: its words are the caller's ("Time for
/// your clip" unless titles are shown).
package enum ReminderPrompt {
    /// What the person did with the notification.
    package enum Answer: String, Sendable {
        /// Pressed Play.
        case play
        /// Pressed In 10 minutes.
        case later
        /// Pressed Not today.
        case notToday = "not-today"
        /// Closed it without an answer (or the server did).
        case dismissed
        /// Gave no answer in the time it waited.
        case none
        /// Was not asked: a clip played, or a recording was under way, until the time it waited
        /// for them to end.
        case playing
    }

    /// The actions, as the notification lists them: key, then label; the second says when it
    /// asks again (`later` seconds: "In 10 minutes").
    static func actions(later: Int) -> [String] {
        ["play", "Play", Answer.later.rawValue, "In " + laterText(later), Answer.notToday.rawValue, "Not today"]
    }

    /// `later` seconds in words: "10 minutes", "1 minute", "30 seconds".
    package static func laterText(_ seconds: Int) -> String {
        let (count, unit) = seconds % 60 == 0 ? (seconds / 60, "minute") : (seconds, "second")
        return "\(count) \(unit)\(count == 1 ? "" : "s")"
    }

    /// Shows `body` with the actions (In `later` seconds the second) and waits, at most `seconds`, for the person's answer; the
    /// notification is closed when none came. Neither a clip cravey plays (it serves the
    /// desktop's media controls, ``MediaPlayerService/busName``) nor a recording under way in
    /// `library` (``LibraryReminders/recordingUnderWay()``) is ever interrupted: the question
    /// waits until they end, woken by the bus name's owner changing and by inotify on the
    /// library's recordings folder (no polling), or, at `playsUntil`, is not asked
    /// (``Answer/playing``). Blocking, on a thread of its own.
    ///
    /// Throws ``CraveyError`` `.unavailable` when there is no session bus (of local sockets) or
    /// no notification server on it, saying which.
    package static func ask(_ body: String, waitingAtMost seconds: Double, playsUntil: Date, library: RecordingLibrary,
                            later: Int) async throws -> Answer {
        guard SessionBus.exists() else {
            throw CraveyError(.unavailable, "There is no session bus (DBUS_SESSION_BUS_ADDRESS, or $XDG_RUNTIME_DIR/bus) to show the reminder on: nothing was offered. A reminder is offered in a desktop session.")
        }
        return try await onDedicatedThread(named: "cravey.remind") { () throws -> Answer in
            let bus = try SessionBus()
            let wake = try BusWakeup()
            // The server asked for first: none on the bus is said before anything is subscribed.
            do {
                _ = try bus.call("org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                 interface: "org.freedesktop.Notifications", member: "GetServerInformation", [], timeout: 2)
            } catch {
                throw CraveyError(.unavailable, "No notification server answered on the session bus (\(error)): nothing was offered.", underlying: error)
            }
            // A play under way: its bus name's owner changing wakes the wait, which asks again.
            try bus.subscribe("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(MediaPlayerService.busName)'") { _ in
                wake.ring()
            }
            // A recording made or saved: a change in its folder wakes the wait too (watched
            // before it is looked at, so that none is missed between).
            let recordings = FolderWatch(library.reminders.recordings)
            let playsEnd = ContinuousClock.now.advanced(by: .seconds(max(playsUntil.timeIntervalSinceNow, 0)))
            while try isPlaying(bus) || library.reminders.recordingUnderWay() {
                guard let left = milliseconds(until: playsEnd) else { return .playing }
                try bus.process(orWakeOn: wake, also: recordings.map { [$0.descriptor] } ?? [], atMost: left)
                recordings?.drain()
            }
            var shown: UInt32?
            var answer: Answer?
            // Subscribed before it shows, so a press right after it shows is not missed.
            try bus.subscribe("type='signal',interface='org.freedesktop.Notifications',member='ActionInvoked'") { message in
                guard let shown, let arguments = try? message.arguments(), arguments.first == .uint32(shown),
                      case .string(let key)? = arguments.last, let pressed = Answer(rawValue: key) else { return }
                answer = answer ?? pressed
                // Handled before the bus is polled, too: the poll must not wait then.
                wake.ring()
            }
            try bus.subscribe("type='signal',interface='org.freedesktop.Notifications',member='NotificationClosed'") { message in
                guard let shown, (try? message.arguments())?.first == .uint32(shown) else { return }
                answer = answer ?? .dismissed
                wake.ring()
            }
            guard let id = try bus.notify(body: body, actions: actions(later: later), expiring: 0, timeout: 2) else {
                throw CraveyError(.unavailable, "The notification server gave no id for the reminder: nothing was offered.")
            }
            shown = id
            let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
            while answer == nil, let left = milliseconds(until: deadline) {
                try bus.process(orWakeOn: wake, atMost: left)
            }
            if answer == nil || answer == .later || answer == .notToday {
                // Unanswered, or answered by a button the server may leave on the screen: closed.
                bus.closeNotification(id)
            }
            return answer ?? .none
        }
    }

    /// Whether a cravey play serves the media controls now. The corresponding D-Bus call is
    /// `org.freedesktop.DBus.NameHasOwner`.
    private static func isPlaying(_ bus: SessionBus) throws -> Bool {
        try bus.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameHasOwner",
                     [.string(MediaPlayerService.busName)], timeout: 2) == [.bool(true)]
    }

    /// The milliseconds left until `deadline` (at least 1); nil once it has passed.
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32? {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return nil }
        return Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
    }
}
