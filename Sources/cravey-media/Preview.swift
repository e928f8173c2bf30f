import CraveyCommands
import CraveyKit
import Dispatch
import Foundation

/// The look back after a recording stops, on a terminal: its duration and waveform, and keys to
/// play it back (never counted), set its title, notes and purpose (as `cravey edit` does, with
/// its refusals), discard it, or keep it.
///
/// The clip is saved durably before this starts, so every way out that is not a confirmed
/// discard keeps it: Enter, end of input, a closed terminal (SIGHUP), Ctrl-C, SIGTERM.
struct Preview {
    let library: RecordingLibrary
    var recording: Recording
    /// The sink to play it back to (`--device` is the recording's source, so the default sink).
    let sink: String?
    /// The recording's SIGINT, SIGTERM and SIGHUP, which keep the clip from here on.
    let signals: OnSignals

    static let keys = "p play · t title · n notes · u purpose · d discard · Enter keep"

    /// Runs the look back; returns the clip as kept, or nil when it was discarded.
    mutating func run() async -> Recording? {
        // From here, a signal keeps the clip as it now stands and ends as Enter does, the
        // terminal's mode put back first.
        let kept = Locked(recording)
        var mode = termios()
        tcgetattr(0, &mode)
        let original = mode
        signals.handle {
            var mode = original
            tcsetattr(0, TCSANOW, &mode)
            Terminal.diagnostic("\r\u{1B}[2KKept \"\(Format.visible(kept.withLock { $0.title }))\".")
            do {
                try Terminal.output(kept.withLock { $0.id.uuidString.lowercased() })
            } catch {
                CraveyMedia.exit(reporting: error)  // a full disk is 73, as everywhere
            }
            Foundation.exit(0)
        }
        let waveform = try? await library.waveform(of: recording)
        show(waveform)
        while true {
            // Reading the terminal blocks: on a thread of its own, off the cooperative pool.
            guard let key = try? await onDedicatedThread(named: "cravey.keys", { Self.readKey() }) ?? nil else {
                return recording  // end of input: kept
            }
            switch key {
            case .character("\n"), .character("\r"):
                Terminal.diagnostic("Kept \"\(Format.visible(recording.title))\".")
                return recording
            case .character("p"):
                await playBack(waveform)
            case .character("t"):
                await change("Title (at most 40 characters; empty: \"Recording <date>\")", current: recording.title) { metadata, text in
                    metadata.title = text.isEmpty ? nil : text
                }
            case .character("n"):
                await change("Notes (at most 200 characters; empty: none)", current: recording.notes ?? "") { metadata, text in
                    metadata.notes = text.isEmpty ? nil : text
                }
            case .character("u"):
                await change("Purpose (motivational, craving, reflection or milestone; empty: none)",
                       current: recording.purpose?.rawValue ?? "") { metadata, text in
                    metadata.purpose = try RecordingMetadata.purpose(named: text)
                }
            case .character("d"):
                if await discard() { return nil }
            default:
                continue
            }
            kept.withLock { $0 = recording }
            Terminal.diagnostic(Self.keys)
        }
    }

    /// The duration, the waveform across the terminal and the keys.
    private func show(_ waveform: Waveform?) {
        let title = Format.visible(recording.title)
        Terminal.diagnostic("\"\(title)\" · \(Format.duration(recording.duration))")
        if let waveform { Terminal.diagnostic(waveform.sparkline(width: max(8, min(Terminal.columns - 1, 100)))) }
        Terminal.diagnostic(Self.keys)
    }

    /// Plays the clip to the default sink, not counted, its waveform as the progress line; space
    /// pauses, any other key stops.
    private func playBack(_ waveform: Waveform?) async {
        let manager: PlaybackManager
        do {
            manager = try await library.play(recording, options: PlaybackOptions(sink: sink, countsPlay: false))
        } catch let error as CraveyError {
            return Terminal.diagnostic("cravey: \(Messages.text(for: error))")
        } catch {
            return Terminal.diagnostic("cravey: \(error)")
        }
        Terminal.diagnostic("Playing (not counted): space pauses, any other key stops.")
        let keys = KeyReader { key in
            if key == .character(" ") { manager.perform(.togglePause) } else { manager.stop() }
        }
        let line = ProgressLine(duration: manager.duration, waveform: waveform, colour: Terminal.isInteractive)
        let view = Task {
            for await event in manager.events { Terminal.diagnostic(line.draw(event), terminator: "") }
        }
        _ = try? await manager.result()
        await view.value
        keys.restore()
        Terminal.diagnostic("", terminator: "\r\u{1B}[2K")
    }

    /// Asks for a line and changes the clip with it, as `cravey edit` would; a refusal is said
    /// and nothing changes.
    private mutating func change(_ prompt: String, current: String,
                                 _ apply: @escaping @Sendable (inout RecordingMetadata, String) throws -> Void) async {
        guard let line = await Self.readLine(prompt + (current.isEmpty ? "" : " [now: \(Format.visible(current))]") + ": ") else { return }
        do {
            // SQLite and the writers' lock may wait: off the cooperative pool, as the reads are.
            recording = try await onDedicatedThread(named: "cravey.edit") { [library, recording] in
                try library.edit(recording.id) { metadata in try apply(&metadata, line) }
            }
            if prompt.hasPrefix("Title") { MetadataOptions.noteTrimmed(title: line, notes: nil) }
            if prompt.hasPrefix("Notes") { MetadataOptions.noteTrimmed(title: nil, notes: line) }
            Terminal.diagnostic("Updated \"\(Format.visible(recording.title))\".")
        } catch let error as CraveyError {
            Terminal.diagnostic("cravey: \(Messages.text(for: error)) Nothing was changed.")
        } catch {
            Terminal.diagnostic("cravey: \(error) Nothing was changed.")
        }
    }

    /// Asks, and deletes the clip on yes; true when it is gone.
    private func discard() async -> Bool {
        guard let answer = await Self.readLine("Discard recording? This cannot be undone. [y/N] "),
              ["y", "yes"].contains(answer.lowercased()) else {
            Terminal.diagnostic("Not discarded.")
            return false
        }
        do {
            _ = try await onDedicatedThread(named: "cravey.delete") { [library, recording] in try library.delete(recording.id) }
            Terminal.diagnostic("Discarded \"\(Format.visible(recording.title))\".")
            return true
        } catch let error as CraveyError {
            Terminal.diagnostic("cravey: \(Messages.text(for: error)) The clip was kept.")
        } catch {
            Terminal.diagnostic("cravey: \(error) The clip was kept.")
        }
        return false
    }

    /// One key from the terminal, read without Enter or echo; nil at the end of input (or a
    /// terminal gone). The corresponding C functions are `tcsetattr` and `read`.
    static func readKey() -> PlayerKey? {
        var saved = KeyReader.keysMode()
        defer { tcsetattr(0, TCSANOW, &saved) }
        // A byte at a time, so that what is typed after the key (a line for a prompt) stays
        // unread; an escape sequence (an arrow) arrives at once and is read whole.
        var bytes: [UInt8] = []
        while true {
            var byte: UInt8 = 0
            let count = Foundation.read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes.append(byte)
            var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            if bytes.first == 0x1B, bytes.count < 8, poll(&waiting, 1, 30) > 0 { continue }
            if let (key, _) = KeyReader.key(startingAt: bytes), let key { return key }
            bytes = []  // a key the look back does not know
        }
    }

    /// A line typed after `prompt` (with echo, as the terminal edits it), spaces at its ends
    /// kept for the refusals to see; nil at the end of input.
    private static func readLine(_ prompt: String) async -> String? {
        Terminal.diagnostic(prompt, terminator: "")
        return try? await onDedicatedThread(named: "cravey.keys") { Swift.readLine() } ?? nil
    }
}
