import CraveyKit
import Foundation

/// One play as `cravey play` (``Player``) and the home screen (``HomeWork``) both start and
/// follow it, so that the two play alike: the options (the settings' loudness, the desktop shown
/// the clip's title only when desktop.show-titles says so, a video in a window when there is a
/// display, the window's keys the key table's), the play through the door, the desktop's media
/// controls (MPRIS) on it while it plays, and how it ended.
struct PlayController: Sendable {
    let library: RecordingLibrary
    /// The loudness it plays at, and whether the desktop is shown the title.
    let settings: AppSettings

    /// What a play is asked for beside its clip.
    struct Request: Sendable {
        /// Where to start, in seconds.
        var start = 0.0
        var speed = 1.0
        /// Whether the play is counted when it ends.
        var counted = true
        /// The sink to play to; nil: the default one.
        var sink: String?
        /// Whether the clip is turned toward the settings' loudness.
        var normalize = true
        /// Whether a video's pictures may show in a window (there must be a display too).
        var video = true
    }

    /// Whether `recording` shows in a window when played as `request` asks: a video, asked for,
    /// with a display.
    static func showsWindow(_ recording: Recording, _ request: Request) -> Bool {
        recording.type == .video && request.video && hasDisplay
    }

    /// Starts playing `recording` as `request` asks.
    func start(_ recording: Recording, _ request: Request) async throws -> PlaybackManager {
        var options = PlaybackOptions(sink: request.sink, start: request.start, normalize: request.normalize, countsPlay: request.counted,
                                      showsVideo: Self.showsWindow(recording, request), showsTitle: settings.showsTitles,
                                      loudnessTarget: settings.loudness, speed: request.speed)
        options.windowKeys = KeyTable.windowCommand
        return try await library.play(recording, options: options)
    }

    /// Follows `manager` to its end: each event to the desktop's controls (`desktop`) and to
    /// `each`, then the controls ended; how the play ended.
    static func follow(_ manager: PlaybackManager, desktop: MediaPlayerService?,
                       each: (PlaybackEvent) -> Void) async -> Result<PlaybackSummary, any Error> {
        for await event in manager.events {
            desktop?.update(event)
            each(event)
        }
        let outcome: Result<PlaybackSummary, any Error>
        do {
            outcome = .success(try await manager.result())
        } catch {
            outcome = .failure(error)
        }
        await desktop?.end()
        return outcome
    }

    /// What the desktop shows of a playing clip when it is not shown the title.
    static let discreetLine = "Playing your clip"

    /// The desktop's media controls and keys (MPRIS) on a play, for `play`, `quickplay` and the
    /// home screen alike, best effort; with `notifying`, a notification says what plays and how
    /// to stop it. Whoever sees the screen (the lock screen, a shared desk) reads "Playing your
    /// clip" and sees no picture, unless the desktop.show-titles setting says to show the title.
    func desktop(for manager: PlaybackManager, playing recording: Recording, notifying: Bool) async -> MediaPlayerService? {
        let shown = settings.showsTitles, title = Format.visible(recording.title)
        return await MediaPlayerService.start(
            for: manager, playing: recording, title: shown ? recording.title : Self.discreetLine,
            artwork: shown ? library.analysis.thumbnailURL(of: recording) : nil,
            notification: !notifying ? nil : (
                shown ? "Playing \"\(title)\"" : "cravey",
                "\(shown ? "" : Self.discreetLine + ", ")\(Format.duration(manager.duration)). Stop it with the Stop button, the media keys or the desktop's player controls."))
    }

    /// True when the environment names a display for a window (X11 or Wayland).
    static var hasDisplay: Bool {
        let environment = ProcessInfo.processInfo.environment
        return !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    }
}
