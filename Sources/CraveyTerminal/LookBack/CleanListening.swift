import CraveyKit
import Foundation

/// A clean-up compared with its clip on the terminal and kept or not: `cravey clean` and the
/// look back's `c` both ask through it.
package struct CleanListening {
    let library: RecordingLibrary
    let cleanup: NoiseCleanup
    /// The sink to listen on (nil: the default one).
    let sink: String?
    /// The loudness clips play at (`play.loudness`): both are heard as cravey plays them.
    let loudness: Double

    package init(library: RecordingLibrary, cleanup: NoiseCleanup, sink: String?, loudness: Double) {
        (self.library, self.cleanup, self.sink, self.loudness) = (library, cleanup, sink, loudness)
    }

    /// How a look back or a clean-up plays what a person listens to before deciding: on `sink`,
    /// from `start`, at the loudness clips play at, never counted.
    static func listening(sink: String?, from start: Double = 0, loudness: Double) -> PlaybackOptions {
        PlaybackOptions(sink: sink, start: start, countsPlay: false, loudnessTarget: loudness)
    }

    /// What the clean-up measured, for a person: where the noise was learnt, its floor before
    /// and after, and the change of the speech level.
    package static func figures(_ cleanup: NoiseCleanup) -> String {
        let sample = cleanup.noiseSample
        var text = "Noise learnt from \(ClipTime.text(sample.lowerBound))-\(ClipTime.text(sample.upperBound)), the clip's quietest stretch.\n"
        text += "Noise floor: \(level(cleanup.noiseFloorBefore)) before, \(level(cleanup.noiseFloorAfter)) after"
        if cleanup.noiseFloorBefore.isFinite {
            let change = cleanup.noiseFloorBefore - cleanup.noiseFloorAfter
            let drop = !cleanup.noiseFloorAfter.isFinite ? "all of it gone"
                : String(format: change >= 0 ? "%.1f dB lower" : "%.1f dB higher: there was no noise to take out", abs(change))
            text += " (\(drop))"
        }
        text += cleanup.speechLevelChange.map { String(format: "; speech level %+.1f dB.", $0) } ?? "; no speech level to compare."
        return text
    }

    /// `-48.3 dBFS`, or digital silence.
    static func level(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f dBFS", value) : "digital silence"
    }

    /// Asks until the person keeps the cleaned clip (`y`: returns the row as it now is) or not
    /// (`n`, Enter, the end of input: it is discarded, nil); `p` listens first. The loop around
    /// ``CleanUpState``: its effects carried out, what they end with given back.
    package func decide() async throws -> Recording? {
        let state = Locked(CleanUpState())
        var effects: [CleanUpState.Effect] = []
        while true {
            switch effects.isEmpty ? .askKey : effects.removeFirst() {
            case .askKey:
                Terminal.diagnostic(state.withLock { $0.frame })
                // (next throws nothing: the `try?` only unwraps.)
                let key = try? await onDedicatedThread(named: "cravey.keys", { KeyReader.next(pasted: Preview.keys) }) ?? nil
                effects = state.withLock { $0.apply(.key(key)) } + effects
            case .listen(let cleaned, let from):
                let stopped = await listen(cleaned: cleaned, from: from, state: state)
                effects = state.withLock { $0.apply(.heard(stoppedAt: stopped)) } + effects
            case .keepCleaned:
                let kept = try await LookBackWork(library: library).keep(cleanup)
                Terminal.diagnostic("Kept the cleaned \"\(Format.visible(kept.title))\".")
                return kept
            case .keepAsItWas:
                library.shaping.discard(cleanup)
                Terminal.diagnostic("Kept \"\(Format.visible(cleanup.recording.title))\" as it was.")
                return nil
            case .perform, .stop:
                continue  // the key reader's, while one of the two is heard
            }
        }
    }

    /// Plays the cleaned clip (B), or the clip as it was (A), from `from`, at the level cravey
    /// plays them at, never counted, until a key stops it (``CleanUpState``'s listening keys: `a`
    /// to switch, space to pause); where it stopped, or nil when it did not start or failed.
    private func listen(cleaned: Bool, from: Double, state: Locked<CleanUpState>) async -> Double? {
        let options = Self.listening(sink: sink, from: from, loudness: loudness)
        guard let manager = await Preview.startListening({ [library, cleanup] in
            cleaned ? try await library.shaping.play(cleanup, options: options) : try await library.play(cleanup.recording, options: options)
        }) else { return nil }
        Terminal.diagnostic(state.withLock { $0.frame })
        let keys = KeyReader { key in
            for effect in state.withLock({ $0.apply(.key(key)) }) {
                switch effect {
                case .perform(let command): manager.perform(command)
                case .stop: manager.stop()
                default: continue
                }
            }
        }
        let line = ProgressLine(duration: manager.duration, waveform: nil, colour: Terminal.isInteractive)
        let view = Task {
            for await event in manager.events { Terminal.diagnostic(line.draw(event), terminator: "") }
        }
        let summary = try? await manager.result()
        await view.value
        keys.restore()
        Terminal.diagnostic("", terminator: "\r\u{1B}[2K")
        return summary?.position
    }
}
