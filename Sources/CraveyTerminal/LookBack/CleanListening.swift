import CraveyCommands
import CraveyKit
import Foundation

/// A clean-up compared with its clip on the terminal and kept or not: `cravey clean` and the
/// look back's `c` both ask through it.
package struct CleanListening {
    let library: RecordingLibrary
    let cleanup: NoiseCleanup
    /// The sink to listen on (nil: the default one).
    let sink: String?

    package init(library: RecordingLibrary, cleanup: NoiseCleanup, sink: String?) {
        (self.library, self.cleanup, self.sink) = (library, cleanup, sink)
    }

    static let keys = KeyTable.line(.cleanUp)

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
    /// (`n`, Enter, the end of input: it is discarded, nil); `p` listens first.
    package func decide() async throws -> Recording? {
        while true {
            Terminal.diagnostic(Self.keys)
            // (next throws nothing: the `try?` only unwraps.)
            let key = try? await onDedicatedThread(named: "cravey.keys", { KeyReader.next(pasted: Preview.keys) }) ?? nil
            switch key.map({ KeyTable.action(for: $0, in: .cleanUp) }) {
            case .listen??:
                await listen()
            case .keepCleaned??:
                let kept = try await library.keep(cleanup)
                Terminal.diagnostic("Kept the cleaned \"\(Format.visible(kept.title))\".")
                return kept
            case .keepAsItWas??, nil:  // nil: the end of input
                library.discard(cleanup)
                Terminal.diagnostic("Kept \"\(Format.visible(cleanup.recording.title))\" as it was.")
                return nil
            default:
                continue
            }
        }
    }

    /// Plays the cleaned clip (B) from its start; `a` switches to the clip as it was (A), or
    /// back, at the same moment; space pauses; any other key stops. Both play at the level
    /// cravey plays them at, never counted.
    func listen() async {
        var cleaned = true
        var position = 0.0
        while true {
            let switching = Locked(false)
            let options = PlaybackOptions(sink: sink, start: position, countsPlay: false)
            guard let manager = await Preview.startListening({ [library, cleanup, cleaned] in
                cleaned ? try await library.play(cleanup, options: options) : try await library.play(cleanup.recording, options: options)
            }) else { return }
            Terminal.diagnostic(cleaned ? "B: after (cleaned); a switches to before, space pauses, any other key stops."
                                        : "A: before; a switches to after (cleaned), space pauses, any other key stops.")
            let keys = KeyReader { key in
                switch KeyTable.action(for: key, in: .cleanListening) {
                case .switchCleaned?:
                    switching.withLock { $0 = true }
                    manager.stop()
                case .player(let command)?:
                    manager.perform(command)
                default:
                    manager.stop()
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
            guard switching.withLock({ $0 }) else { return }
            position = summary?.position ?? position
            cleaned.toggle()
        }
    }
}
