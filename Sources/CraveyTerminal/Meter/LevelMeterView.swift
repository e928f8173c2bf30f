import CraveyKit
import Foundation

/// Shows what is being recorded on stderr: a live meter on a terminal, a line otherwise, and
/// what ended early and how many frames a video holds. The loop around ``RecorderState``: the
/// recorder's events and the keys in, its lines said and its meter drawn.
package struct LevelMeterView: Sendable {
    /// The meter as it stands, shared with the key reader's thread.
    private let state: Locked<RecorderState>
    /// The meter's line as last drawn, to draw again when the terminal is taken back after
    /// Ctrl-Z and `fg`.
    package let drawn = Locked("")

    /// With `spaceToPause` (stdin is the terminal), space pauses and `m` marks.
    package init(seconds: Double?, video: RecordingOptions?, spaceToPause: Bool = false) {
        // The meter is drawn again in place: it needs a terminal on stderr that does more than
        // print lines (not TERM=dumb). NO_COLOR takes its colour, not the meter.
        state = Locked(RecorderState(seconds: seconds, video: video, spaceToPause: spaceToPause, live: Terminal.canRedraw,
                                     colour: Terminal.isInteractive, columns: Terminal.columns))
    }

    /// The markers made while recording, a label being typed kept as typed: what the clip is
    /// saved with.
    package var markers: [ClipMarker] {
        state.withLock { $0.markers.finished }
    }

    /// What `key` does while recording, as the key table's recorder keys say: `m` marks the
    /// moment and the label typed after it is the markers'; space pauses and goes on (`pausing`).
    package func handle(_ key: Key, pausing: () -> Void) {
        if state.withLock({ $0.apply(.key(key)) }).contains(.togglePause) { pausing() }
    }

    /// Shows what the recorder reported: a line said, the meter drawn again.
    package func show(_ event: RecordingEvent) {
        let columns = Terminal.columns
        let (effects, live) = state.withLock { state in
            state.columns = columns
            return (state.apply(.recording(event)), state.live)
        }
        for effect in effects {
            switch effect {
            case .say(let text, let clearing):
                if live, clearing { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic(text)
            case .draw(let line):
                Terminal.diagnostic(line, terminator: "")
                drawn.withLock { $0 = line }
            case .togglePause:
                continue  // a key's, never an event's
            }
        }
    }

    /// Clears the meter's line once the recording has ended.
    package func end() {
        if state.withLock({ $0.live }) { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
    }

    /// Starts recording as `options` say, in `library` (``RecordController``, as the home screen
    /// records).
    package static func start(_ options: RecordingOptions, in library: RecordingLibrary) async throws -> Recorder {
        try await RecordController(library: library).start(options)
    }

    /// Shows `recorder`'s events until it is stopped, then saves the clip with `metadata`, made at
    /// `createdAt`, with the markers made (``RecordController``, as the home screen saves).
    package func save(_ recorder: Recorder, _ metadata: RecordingMetadata, createdAt: Date) async throws -> Recording {
        defer { end() }
        return try await RecordController.save(recorder, metadata, createdAt: createdAt, markers: { markers }, each: show)
    }
}
