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
        signals.handle {
            TerminalMode.giveBack()
            Terminal.diagnostic("\(Terminal.canRedraw ? "\r\u{1B}[2K" : "\n")Kept \"\(Format.visible(kept.withLock { $0.title }))\".")
            do {
                try Terminal.output(kept.withLock { $0.id.uuidString.lowercased() })
            } catch {
                CraveyMedia.exit(reporting: error)  // a full disk is 73, as everywhere
            }
            Foundation.exit(0)
        }
        let waveform: Waveform?
        do {
            waveform = try await library.waveform(of: recording)
        } catch {
            waveform = nil
            Terminal.diagnostic("cravey: warning: the waveform cannot be drawn: \(Self.describe(error))")
        }
        show(waveform)
        while true {
            // Reading the terminal blocks: on a thread of its own, off the cooperative pool.
            // (readKey throws nothing: the `try?` only unwraps.)
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
                await change(.title, "Title (at most 40 characters; empty: \"Recording <date>\")", current: recording.title) { metadata, text in
                    metadata.title = text.isEmpty ? nil : text
                }
            case .character("n"):
                await change(.notes, "Notes (at most 200 characters; empty: none)", current: recording.notes ?? "") { metadata, text in
                    metadata.notes = text.isEmpty ? nil : text
                }
            case .character("u"):
                await change(.purpose, "Purpose (motivational, craving, reflection or milestone; empty: none)",
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
        // `kill -USR1 PID` pauses and resumes it, as space does; ignored again afterwards.
        let pauses = OnSignals([SIGUSR1]) { manager.perform(.togglePause) }
        defer { pauses.cancel() }
        // Drawn in place, so not on a terminal that only prints lines (TERM=dumb).
        let line = Terminal.canRedraw ? ProgressLine(duration: manager.duration, waveform: waveform, colour: Terminal.isInteractive) : nil
        let drawn = Locked("")
        let keys = KeyReader(redraw: { Terminal.diagnostic(drawn.withLock { $0 }, terminator: "") }) { key in
            if key == .character(" ") { manager.perform(.togglePause) } else { manager.stop() }
        }
        let view = Task {
            for await event in manager.events {
                guard let text = line?.draw(event) else { continue }
                Terminal.diagnostic(text, terminator: "")
                drawn.withLock { $0 = text }
            }
        }
        let failure: (any Error)?
        do {
            _ = try await manager.result()
            failure = nil
        } catch {
            failure = error
        }
        await view.value
        keys.restore()
        if line != nil { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
        if let failure { Terminal.diagnostic("cravey: the play back stopped: \(Self.describe(failure))") }
    }

    /// The words the look back asks for.
    private enum Field: String {
        case title, notes, purpose
    }

    /// Asks for a line and changes the clip's `field` with it, as `cravey edit` would; a refusal
    /// is said and nothing changes, and so is text pasted with a line break (a field is one line).
    private mutating func change(_ field: Field, _ prompt: String, current: String,
                                 _ apply: @escaping @Sendable (inout RecordingMetadata, String) throws -> Void) async {
        let line: String
        switch await Self.ask(prompt + (current.isEmpty ? "" : " [now: \(Format.visible(current))]") + ": ") {
        case .line(let typed):
            line = typed
        case .pasted:
            return Terminal.diagnostic("cravey: the text held a line break (pasted?), and the \(field.rawValue) is one line: it was not taken, nor anything after it. Nothing was changed.")
        case .ended:
            return
        }
        do {
            // SQLite and the writers' lock may wait: off the cooperative pool, as the reads are.
            recording = try await onDedicatedThread(named: "cravey.edit") { [library, recording] in
                try library.edit(recording.id) { metadata in try apply(&metadata, line) }
            }
            if field == .title { MetadataOptions.noteTrimmed(title: line, notes: nil) }
            if field == .notes { MetadataOptions.noteTrimmed(title: nil, notes: line) }
            Terminal.diagnostic("Updated \"\(Format.visible(recording.title))\".")
        } catch let error as CraveyError {
            Terminal.diagnostic("cravey: \(Messages.text(for: error)) Nothing was changed.")
        } catch {
            Terminal.diagnostic("cravey: \(error) Nothing was changed.")
        }
    }

    /// Asks, and deletes the clip on yes; true when it is gone.
    private func discard() async -> Bool {
        // Only what is typed after the question counts: a key typed ahead is no answer.
        switch await Self.ask("Discard recording? This cannot be undone. [y/N] ", flushing: true) {
        case .line(let answer) where ["y", "yes"].contains(answer.lowercased()):
            break
        case .pasted:
            Terminal.diagnostic("cravey: the answer held a line break (pasted?); it is not taken as one. Not discarded.")
            return false
        case .line, .ended:
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

    /// What a person reads of `error`.
    private static func describe(_ error: any Error) -> String {
        (error as? CraveyError).map { Messages.text(for: $0) } ?? "\(error)"
    }

    /// One key from the terminal, read without Enter or echo (the terminal lent by
    /// ``TerminalMode`` meanwhile); nil at the end of input (or a terminal gone). Text pasted
    /// (more than a key's bytes at once) is no key: it is thrown away, said, and the wait goes on.
    /// The corresponding C functions are `read` and `poll`.
    private static func readKey() -> PlayerKey? {
        TerminalMode.lend(mouse: false)
        defer { TerminalMode.giveBack() }
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
            if bytes.first != 0x1B, poll(&waiting, 1, 0) > 0 {
                _ = Terminal.discardWaitingInput()
                Terminal.diagnostic("Pasted text is not a key: nothing was done. \(keys)")
                bytes = []
                continue
            }
            if let (key, _) = KeyReader.key(startingAt: bytes), let key { return key }
            bytes = []  // a key the look back does not know
        }
    }

    /// What is typed after `question` (``Terminal/ask(_:flushing:)``), read off the cooperative pool.
    private static func ask(_ question: String, flushing: Bool = false) async -> Terminal.Answer {
        // ask throws nothing: the `try?` only unwraps.
        (try? await onDedicatedThread(named: "cravey.keys") { Terminal.ask(question, flushing: flushing) }) ?? .ended
    }
}
