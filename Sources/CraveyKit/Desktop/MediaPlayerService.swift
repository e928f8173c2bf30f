import Foundation

/// The desktop's controls for one play: while it lasts, an MPRIS player on the session bus
/// (`org.mpris.MediaPlayer2.cravey`, or `...cravey.instance<pid>` when another cravey owns that),
/// which the media keys, the shell's media controls and `playerctl` drive through the same
/// ``PlaybackManager`` the terminal's keys drive; and, when asked, a desktop notification
/// (org.freedesktop.Notifications) with a Stop button, closed when the play ends.
///
/// What it shows anyone who sees the screen (the shell's media panel, the lock screen) is what
/// its caller gives: the command line gives "Playing your clip" and no picture unless the
/// person's settings ask for the clip's title.
///
/// Without a session bus nothing happens and nothing is loaded (``SessionBus/exists(in:)``). One
/// thread owns the bus; ``update(_:)`` hands it the playback's events, from which it signals
/// `PlaybackStatus` changes (PropertiesChanged) and jumps (`Seeked`); ``end()`` closes it.
///
/// Best effort, on purpose: the play never fails, and says nothing, because of the desktop. A
/// bus that cannot be reached, a name already owned, a notification server that is missing or a
/// signal the bus refuses gives that part up (the `try?`s here), and the play goes on.
package final class MediaPlayerService: Sendable {
    package static let busName = "org.mpris.MediaPlayer2.cravey"
    static let path = "/org/mpris/MediaPlayer2"
    static let root = "org.mpris.MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"

    private let manager: PlaybackManager
    private let trackID: String
    private let metadata: [String: BusValue]
    private let notification: (summary: String, body: String)?
    /// The newest event and when it came, and whether the bus thread has been told to end.
    private let state = Locked<(latest: (PlaybackEvent, ContinuousClock.Instant)?, ending: Bool)>((nil, false))
    /// What wakes the bus thread.
    private let wake: BusWakeup
    /// The name owned (nil: none, the thread has ended), then the thread's end.
    private let ready = Completion<String?>()
    private let finished = Completion<Void>()

    /// Serves `manager`, playing `recording`, on the session bus as `title` (`xesam:title`), and
    /// shows `notification` (a summary and a body) if one is given and a notification server
    /// answers; returns once the name is owned, or nil at once when there is no session bus, or
    /// when it cannot be used. `artwork` is the picture the desktop shows (a video's thumbnail).
    package static func start(for manager: PlaybackManager, playing recording: Recording, title: String, artwork: URL?,
                              notification: (summary: String, body: String)?) async -> MediaPlayerService? {
        guard SessionBus.exists() else { return nil }
        guard let wake = try? BusWakeup() else { return nil }
        let service = MediaPlayerService(manager, recording, title, artwork, notification, wake)
        DedicatedThread.start(named: "cravey.mpris") { service.run() }.detach()
        guard (try? await service.ready.value()) != nil else { return nil }
        return service
    }

    private init(_ manager: PlaybackManager, _ recording: Recording, _ title: String, _ artwork: URL?,
                 _ notification: (summary: String, body: String)?, _ wake: BusWakeup) {
        self.manager = manager
        self.notification = notification
        self.wake = wake
        trackID = "/org/cravey/recording/" + recording.id.description.replacingOccurrences(of: "-", with: "_")
        var metadata: [String: BusValue] = ["mpris:trackid": .objectPath(trackID), "xesam:title": .string(title),
                                            "mpris:length": .int64(Self.microseconds(recording.duration))]
        if let artwork { metadata["mpris:artUrl"] = .string(artwork.absoluteString) }
        self.metadata = metadata
    }

    /// Hands the bus thread the playback's newest event (call it with every event).
    package func update(_ event: PlaybackEvent) {
        signalThread { $0.latest = (event, .now) }
    }

    /// Closes the notification, gives the name up and waits for the bus thread to end.
    package func end() async {
        signalThread { $0.ending = true }
        try? await finished.value()  // only ever resolved with a success
    }

    private func signalThread(_ change: (inout (latest: (PlaybackEvent, ContinuousClock.Instant)?, ending: Bool)) -> Void) {
        state.withLock { change(&$0) }
        wake.ring()
    }

    // MARK: - The bus thread

    private func run() {
        defer {
            ready.resolve(.success(nil))
            finished.resolve(.success(()))
        }
        guard let bus = try? SessionBus() else { return }
        var shown = (event: manager.event, at: ContinuousClock.now)
        var seeked: Double?
        do {
            let suffixed = "\(Self.busName).instance\(getpid())"
            guard try bus.requestName(Self.busName) || bus.requestName(suffixed) else { return }
            try bus.serve(path: Self.path) { [self] message in
                let answer = try answer(message)
                if let target = answer.seeked { (seeked, shown.event.position) = (target, target) }
                return answer.values
            }
            ready.resolve(.success(Self.busName))
        } catch {
            return
        }
        let notice = notification.flatMap { try? notify(bus, $0) }
        while true {
            do { try bus.process(orWakeOn: wake) } catch { break }
            let (latest, ending) = state.withLock { ($0.latest, $0.ending) }
            if let (event, at) = latest, at > shown.at {
                var changed: [String: BusValue] = [:]
                if Self.status(event.state) != Self.status(shown.event.state) { changed["PlaybackStatus"] = .string(Self.status(event.state)) }
                if event.speed != shown.event.speed { changed["Rate"] = .double(event.speed) }
                if !changed.isEmpty {
                    try? bus.signal(path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                    [.string(Self.player), .dictionary(changed), .strings([])])
                }
                let expected = shown.event.position + (shown.event.state == .playing ? (at - shown.at) / .seconds(1) * shown.event.speed : 0)
                if abs(event.position - expected) > 0.5 { seeked = event.position }
                shown = (event, at)
            }
            if let target = seeked {
                try? bus.signal(path: Self.path, interface: Self.player, member: "Seeked", [.int64(Self.microseconds(target))])
                seeked = nil
            }
            if ending { break }
        }
        if let notice { bus.closeNotification(notice) }
    }

    /// Shows the notification, and stops the play when its Stop button is pressed; returns its id.
    private func notify(_ bus: SessionBus, _ notification: (summary: String, body: String)) throws -> UInt32? {
        // Subscribed first, so a press right after the notification shows is not missed.
        var shown: UInt32?
        try bus.subscribe("type='signal',interface='org.freedesktop.Notifications',member='ActionInvoked'") { [manager] message in
            // Arguments that do not parse are another program's action, not our Stop.
            if let shown, (try? message.arguments()) == [.uint32(shown), .string("stop")] { manager.stop() }
        }
        shown = try bus.notify(summary: notification.summary, body: notification.body, actions: ["stop", "Stop"], timeout: 2)
        return shown
    }

    /// The reply to a method call (nil values: a method this player does not have), and where a
    /// seek it asked for goes.
    private func answer(_ message: BusMessage) throws -> (values: [BusValue]?, seeked: Double?) {
        let arguments = try message.arguments()
        switch (message.interface, message.member) {
        case ("org.freedesktop.DBus.Properties", "Get"):
            guard case .string(let interface)? = arguments.first, case .string(let name)? = arguments.last,
                  let value = properties(of: interface)?[name] else {
                throw BusMethodError.invalidArguments("No such property: \(arguments)")
            }
            return ([.variant(value)], nil)
        case ("org.freedesktop.DBus.Properties", "GetAll"):
            guard case .string(let interface)? = arguments.first else { throw BusMethodError.invalidArguments("GetAll takes an interface") }
            return ([.dictionary(properties(of: interface) ?? [:])], nil)
        case ("org.freedesktop.DBus.Properties", "Set"):
            // The speed may be set (`playerctl -p cravey speed`... or a desktop's control); the
            // rest is read-only. Outside 0.5-2 it is clamped.
            guard arguments.count == 3, arguments[0] == .string(Self.player), arguments[1] == .string("Rate") else {
                throw BusMethodError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "cravey's properties are read-only, but for Rate.")
            }
            guard case .variant(.double(let rate)) = arguments[2], rate.isFinite else {
                throw BusMethodError.invalidArguments("Rate is a number (d)")
            }
            // A rate of 0 is a pause, as the specification says.
            if rate <= 0 { manager.pause() } else { manager.setSpeed(rate) }
            return ([], nil)
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return ([.string(Self.introspection)], nil)
        case (Self.root, "Raise"), (Self.player, "Next"), (Self.player, "Previous"):
            return ([], nil)
        case (Self.root, "Quit"), (Self.player, "Stop"): manager.stop()
        case (Self.player, "Play"): manager.resume()
        case (Self.player, "Pause"): manager.pause()
        case (Self.player, "PlayPause"): manager.togglePause()
        case (Self.player, "Seek"):
            guard case .int64(let offset)? = arguments.first else { throw BusMethodError.invalidArguments("Seek takes microseconds (x)") }
            return ([], manager.skip(by: Double(offset) / 1_000_000))
        case (Self.player, "SetPosition"):
            guard arguments.count == 2, case .objectPath(let track) = arguments[0], case .int64(let position) = arguments[1] else {
                throw BusMethodError.invalidArguments("SetPosition takes a track id (o) and microseconds (x)")
            }
            // As the specification asks: another track's id, or a position outside the clip, does nothing.
            guard track == trackID, position >= 0, Double(position) <= Double(Self.microseconds(manager.duration)) else { return ([], nil) }
            return ([], manager.seek(to: Double(position) / 1_000_000))
        case (Self.player, "OpenUri"):
            throw BusMethodError(name: "org.freedesktop.DBus.Error.NotSupported", message: "cravey plays clips of its library only.")
        default:
            return (nil, nil)
        }
        return ([], nil)
    }

    /// The properties of `interface` as they are now.
    private func properties(of interface: String) -> [String: BusValue]? {
        switch interface {
        case Self.root:
            return ["Identity": .string("cravey"), "DesktopEntry": .string("cravey"), "CanQuit": .bool(true),
                    "CanRaise": .bool(false), "HasTrackList": .bool(false), "SupportedUriSchemes": .strings([]),
                    "SupportedMimeTypes": .strings([])]
        case Self.player:
            let event = manager.event
            return ["PlaybackStatus": .string(Self.status(event.state)), "Position": .int64(Self.microseconds(event.position)),
                    "Metadata": .dictionary(metadata), "Rate": .double(event.speed),
                    "MinimumRate": .double(AudioTempo.speeds.lowerBound), "MaximumRate": .double(AudioTempo.speeds.upperBound), "Volume": .double(1), "CanPlay": .bool(true), "CanPause": .bool(true),
                    "CanSeek": .bool(true), "CanControl": .bool(true), "CanGoNext": .bool(false),
                    "CanGoPrevious": .bool(false)]
        default:
            return nil
        }
    }

    private static func status(_ state: PlaybackState) -> String {
        switch state {
        case .playing: "Playing"
        case .paused: "Paused"
        case .stopped, .completed: "Stopped"
        }
    }

    private static func microseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1_000_000).rounded())
    }

    /// What the object offers, for tools that ask (`busctl introspect`, d-spy).
    private static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.DBus.Introspectable"><method name="Introspect"><arg type="s" direction="out"/></method></interface>
         <interface name="org.freedesktop.DBus.Properties">
          <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
          <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
          <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
          <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
         </interface>
         <interface name="org.mpris.MediaPlayer2">
          <method name="Raise"/><method name="Quit"/>
          <property name="CanQuit" type="b" access="read"/><property name="CanRaise" type="b" access="read"/>
          <property name="HasTrackList" type="b" access="read"/><property name="Identity" type="s" access="read"/>
          <property name="DesktopEntry" type="s" access="read"/>
          <property name="SupportedUriSchemes" type="as" access="read"/><property name="SupportedMimeTypes" type="as" access="read"/>
         </interface>
         <interface name="org.mpris.MediaPlayer2.Player">
          <method name="Next"/><method name="Previous"/><method name="Pause"/><method name="PlayPause"/>
          <method name="Stop"/><method name="Play"/>
          <method name="Seek"><arg type="x" direction="in"/></method>
          <method name="SetPosition"><arg type="o" direction="in"/><arg type="x" direction="in"/></method>
          <method name="OpenUri"><arg type="s" direction="in"/></method>
          <signal name="Seeked"><arg type="x"/></signal>
          <property name="PlaybackStatus" type="s" access="read"/><property name="Rate" type="d" access="readwrite"/>
          <property name="Metadata" type="a{sv}" access="read"/><property name="Volume" type="d" access="read"/>
          <property name="Position" type="x" access="read"/><property name="MinimumRate" type="d" access="read"/>
          <property name="MaximumRate" type="d" access="read"/><property name="CanGoNext" type="b" access="read"/>
          <property name="CanGoPrevious" type="b" access="read"/><property name="CanPlay" type="b" access="read"/>
          <property name="CanPause" type="b" access="read"/><property name="CanSeek" type="b" access="read"/>
          <property name="CanControl" type="b" access="read"/>
         </interface>
        </node>
        """
}
