import Foundation

/// A video's pictures, shown in a window in step with its sound: decoder thread -> bounded queue
/// (3 pictures) -> window thread, a ``MediaPipeline`` beside the player's own.
///
/// The clock is the sound's: ``PlaybackControl``'s position, what the sink has played with its
/// latency accounted for (the system's clock for a clip without sound). A picture shows once the
/// position reaches its time, waits while it is early, and is dropped when the position has
/// passed its end (late). Pause and seek need nothing of their own: paused, the position stands
/// still, and so does the picture; a seek is a new generation, whose first picture (the one at or
/// before the target, decoded from the keyframe before it) shows at once, paused or not.
///
/// The window's keys are read as ``Key``s and made commands (``PlayerCommand``) by the options'
/// ``PlaybackOptions/windowKeys`` (the terminal's key table), handed to the playback;
/// closing the window stops it, and so does losing the display's connection (``lostProblem``). This pipeline is never paused: the queue holds the decoder back,
/// and at the end it waits for a seek; the window thread waits on the window's events, which
/// ``wake()`` adds to when a picture, a seek, a pause, a resume or a stop needs a look.
final class VideoPlayback: Sendable {
    /// How long a display may take to open a window before the sound plays without it.
    static let openingTimeout = 5.0

    /// Pictures shown, and pictures dropped because they were late.
    typealias Counts = (shown: Int, dropped: Int)
    private typealias Stages = MediaPipeline<Item, Counts, Never>

    private enum Item: Sendable {
        /// The decoder's first item: the pictures' shape, which the window opens for.
        case format(VideoFormat)
        case picture(Picture)
    }

    /// A decoded picture on its way to the window: when it shows, for how long, and the seek
    /// generation it belongs to.
    // @unchecked Sendable: ownership moves with it: the decoder makes a frame for each picture
    // (``Frame/moved()``) and never touches it once pushed; from then on only the window thread does.
    private struct Picture: @unchecked Sendable {
        let frame: Frame
        let generation: Int
        let time: Double
        let duration: Double
    }

    /// What the playback's side and the two threads share.
    private struct Shared {
        /// Where the window's keys go: the playback's commands.
        var commands: @Sendable (PlayerCommand) -> Void = { _ in }
        /// True while the window thread may be woken through SDL's event queue.
        var windowOpen = false
        /// True once the window opened: then the pipeline's result is worth waiting for.
        var started = false
        var fullScreenRequested = false
        /// Set when the display's connection was lost while the window showed.
        var windowLost = false
    }

    private let pipeline: Stages
    private let shared: Locked<Shared>

    /// Prepares to show the pictures of `media`, if it has a video stream, in a window titled `title`.
    /// `keys` makes the window's keys commands.
    init(media: MediaLocation, title: String, control: PlaybackControl, keys: @escaping @Sendable (Key) -> PlayerCommand?) {
        let shared = Locked(Shared())
        self.shared = shared
        pipeline = Stages(
            capacity: 3, threads: ("cravey.video", "cravey.window"),
            producer: { try Self.decode($0, media: media, control: control, shared: shared) },
            consumer: { try Self.show($0, title: title, control: control, keys: keys, shared: shared) })
    }

    /// Opens the window and starts showing pictures, the keys going to `commands`; returns nil
    /// once the window shows (or the file has no video to show), or why it cannot: no display,
    /// no SDL2, a display that refused or did not answer within ``openingTimeout``. Nothing of it
    /// is left running then.
    func start(commands: @escaping @Sendable (PlayerCommand) -> Void) async -> CraveyError? {
        shared.withLock { $0.commands = commands }
        let opened = Completion<CraveyError?>()
        Task { [pipeline] in
            do {
                try await pipeline.start()
                opened.resolve(.success(nil))
            } catch {
                opened.resolve(.success(error as? CraveyError ?? CraveyError(.other, "The video's window failed: \(error).")))
            }
        }
        let timer = Task {
            try await Task.sleep(for: .seconds(Self.openingTimeout))
            opened.resolve(.success(CraveyError(.unavailable, "The display \(Self.display) did not answer within \(Int(Self.openingTimeout)) s.")))
        }
        // `opened` is only ever resolved with a success: the problem is its value.
        let problem = (try? await opened.value()) ?? nil
        timer.cancel()
        if problem == nil {
            shared.withLock { $0.started = true }
        } else {
            // A display that does not answer keeps its thread until it does; the thread then ends.
            pipeline.cancel()
        }
        return problem
    }

    /// Why the window closed before the playback ended, if it did for a reason of the display's:
    /// its connection was lost (the window killed with `xkill`, the X server gone). The playback
    /// stopped then, as closing the window stops it.
    var lostProblem: CraveyError? {
        guard shared.withLock({ $0.windowLost }) else { return nil }
        return CraveyError(.unavailable, "The connection to the display \(Self.display) was lost (the window was killed, or the X server ended), which closed the video's window.")
    }

    /// Stops showing pictures and closes the window; returns how many were shown and dropped.
    /// Throws the error that ended the pictures early, if one did.
    func finish() async throws -> Counts {
        stop()
        guard shared.withLock({ $0.started }) else { return (0, 0) }
        return try await pipeline.result()
    }

    /// Asks both threads to end (the window closes).
    func stop() {
        pipeline.stop()
        wake()
    }

    /// Turns the window full screen, or back.
    func toggleFullScreen() {
        shared.withLock { $0.fullScreenRequested.toggle() }
        wake()
    }

    /// Has both threads look again: the decoder waiting at the end (for a seek), the window's
    /// waiting on its events (for a picture, a seek, a pause or resume, a stop).
    func wake() {
        pipeline.wakeStages()
        Self.wakeWindow(shared)
    }

    /// The display the environment names, for messages.
    private static var display: String {
        let named = { (name: String) in ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : "'\($0)'" } }
        return named("DISPLAY") ?? named("WAYLAND_DISPLAY").map { "\($0) (Wayland)" } ?? "(none named)"
    }

    private static func wakeWindow(_ shared: Locked<Shared>) {
        shared.withLock { if $0.windowOpen { VideoWindow.wake() } }
    }

    // MARK: - Stages

    /// The decoder stage: opens the video stream, hands the window its shape, then decodes from
    /// the requested position and starts over at every seek; after the end it waits for a seek
    /// or a stop. The first picture is decoded while the window opens. A failure once pictures
    /// flow stops the playback.
    private static func decode(_ stage: Stages.Producer, media: MediaLocation, control: PlaybackControl,
                               shared: Locked<Shared>) throws {
        guard let video = try VideoDecoding.open(media), try stage.push(.format(video.format)) else { return }
        var ready = false
        do {
            while true {
                let (generation, target, _) = control.seekRequest
                var failure: (any Error)?
                let ended = try video.pictures(from: target) { frame, time, duration in
                    guard control.isCurrent(generation) else { return false }
                    do {
                        let picture = Picture(frame: frame, generation: generation, time: time, duration: duration)
                        guard try stage.push(.picture(picture)) else { return false }
                        if !ready {
                            try stage.ready()
                            ready = true
                        }
                        wakeWindow(shared)
                        return try stage.proceed()
                    } catch {
                        failure = error
                        return false
                    }
                }
                if let failure { throw failure }
                if !ready {
                    try stage.ready()
                    ready = true
                }
                // Asleep until a seek (which wakes the stages), a stop or a failure.
                if ended, try !stage.wait(until: { !control.isCurrent(generation) }) { return }
                guard try stage.proceed() else { return }
            }
        } catch where ready && !(error is CancellationError) {
            shared.withLock { $0.commands }(.stop)
            throw error
        }
    }

    /// The window stage: opens the window for the decoder's shape and shows each picture at its
    /// time, until the playback stops or the decoder has ended and every picture was taken.
    private static func show(_ stage: Stages.Consumer, title: String, control: PlaybackControl,
                             keys: @Sendable (Key) -> PlayerCommand?, shared: Locked<Shared>) throws -> Counts {
        // SDL connects to the display and makes the window while the decoder opens the file.
        let window: VideoWindow
        do {
            window = try VideoWindow(on: try VideoSubsystem(), title: title)
            guard case .format(let format)? = try stage.pop() else { return (0, 0) }
            try window.reveal(for: format)
        } catch let error as SDLError {
            throw CraveyError(.unavailable, "Cannot open a window on the display \(display) (\(error)).", underlying: error)
        }
        return try withExtendedLifetime(window) {
            shared.withLock { $0.windowOpen = true }
            defer { shared.withLock { $0.windowOpen = false } }
            try stage.ready()
            do {
                return try present(stage, in: window, control: control, keys: keys, shared: shared)
            } catch where !(error is CancellationError) {
                shared.withLock { $0.commands }(.stop)
                throw CraveyError(.other, "The video's window failed: \(error).", underlying: error as? SDLError)
            }
        }
    }

    private static func present(_ stage: Stages.Consumer, in window: VideoWindow, control: PlaybackControl,
                                keys: @Sendable (Key) -> PlayerCommand?, shared: Locked<Shared>) throws -> Counts {
        let commands = shared.withLock { $0.commands }
        var counts: Counts = (0, 0)
        var pending: Picture?
        // The generation of the picture on screen: the first of a new one shows at once.
        var onScreen = -1
        var inputs: [WindowInput] = []
        while true {
            for input in inputs {
                switch input {
                case .key(let key): if let command = keys(key) { commands(command) }
                case .doubleClick: window.toggleFullScreen()
                case .close: commands(.stop)
                case .redraw: window.redraw()
                case .lost:
                    // As closing the window: the playback stops (and counts); nothing more is shown.
                    shared.withLock { $0.windowLost = true }
                    commands(.stop)
                    return counts
                }
            }
            let fullScreen = shared.withLock { shared in
                defer { shared.fullScreenRequested = false }
                return shared.fullScreenRequested
            }
            if stage.isStopping { return counts }
            if fullScreen { window.toggleFullScreen() }
            // The pictures due now; then how long until the next one is (nil: until an event).
            var wait: Double?
            pictures: while true {
                if pending == nil {
                    switch try stage.poll() {
                    case .item(.picture(let picture)): pending = picture
                    case .item(.format): continue
                    case .empty: break pictures
                    case .ended: return counts
                    }
                }
                guard let picture = pending else { break }
                let now = control.event
                if picture.generation != control.seekRequest.generation {
                    pending = nil
                } else if picture.generation == onScreen, now.state == .playing, picture.time + picture.duration <= now.position {
                    counts.dropped += 1
                    pending = nil
                } else if picture.generation != onScreen || picture.time <= now.position {
                    try window.show(picture.frame)
                    counts.shown += 1
                    onScreen = picture.generation
                    pending = nil
                } else {
                    wait = now.state == .playing ? picture.time - now.position : nil
                    break
                }
            }
            inputs = window.inputs(waiting: wait)
        }
    }
}
