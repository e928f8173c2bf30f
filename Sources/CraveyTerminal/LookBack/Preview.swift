import CraveyCommands
import CraveyKit
import Dispatch
import Foundation

/// The look back after a recording stops, on a terminal: its duration and waveform, and keys to
/// play it back (never counted), set its title, notes and purpose (as `cravey edit` does, with
/// its refusals), trim it (the start and end set at the play position, or proposed from its
/// waveform, the first and last 3 s of what is kept heard first), clean its noise (before and
/// after compared), discard it, or keep it.
///
/// The clip is saved durably before this starts, so every way out that is not a confirmed
/// discard keeps it: Enter, end of input, a closed terminal (SIGHUP), Ctrl-C, SIGTERM.
package struct Preview {
    let library: RecordingLibrary
    /// The clip as it now stands; every change is at once what a signal keeps.
    var recording: Recording {
        didSet { kept.withLock { $0 = recording } }
    }
    /// What a signal keeps, shared with its handler (which runs on a thread of its own).
    private let kept: Locked<Recording>
    /// The sink to play it back to (`--device` is the recording's source, so the default sink).
    let sink: String?
    /// The recording's SIGINT, SIGTERM and SIGHUP, which keep the clip from here on.
    let signals: OnSignals

    /// The keys lines: the look back's choices, then its keys that shape the clip.
    static let keys = KeyTable.line(.lookBack), shapeKeys = KeyTable.line(.shaping)

    /// The part to keep, as set so far (nil: the clip's start, its end); `x` cuts to it.
    var cut: (start: Double?, end: Double?) = (nil, nil)
    /// Where the last play back stopped: what `i` and `o` take outside a play back.
    var position = 0.0

    /// The title the first words said make (``Transcript/proposedTitle``), for a clip given
    /// none (its title the automatic "Recording <date>") that has a transcript: Enter at `t` takes it.
    let proposedTitle: String?

    package init(library: RecordingLibrary, recording: Recording, sink: String?, signals: OnSignals) {
        (self.library, self.recording, self.sink, self.signals) = (library, recording, sink, signals)
        kept = Locked(recording)
        proposedTitle = recording.title == RecordingMetadata.automaticTitle(for: recording.createdAt)
            ? library.transcript(of: recording)?.proposedTitle : nil
    }

    /// Runs the look back; returns the clip as kept, or nil when it was discarded.
    package mutating func run() async -> Recording? {
        // From here, a signal keeps the clip as it now stands (its words as soon as they are
        // stored, before "Updated" is said) and ends as Enter does, the terminal's mode put back
        // first.
        signals.handle { [kept] in
            TerminalMode.giveBack()
            Terminal.diagnostic("\(Terminal.canRedraw ? "\r\u{1B}[2K" : "\n")Kept \"\(Format.visible(kept.withLock { $0.title }))\".")
            do {
                try Terminal.output(kept.withLock { $0.id.description })
            } catch {
                Cravey.exit(reporting: error)  // a full disk is 73, as everywhere
            }
            Foundation.exit(0)
        }
        var waveform: Waveform?
        do {
            waveform = try await library.waveform(of: recording)
        } catch {
            waveform = nil
            Terminal.diagnostic("cravey: warning: the waveform cannot be drawn: \(Self.describe(error))")
        }
        show(waveform)
        while true {
            // Reading the terminal blocks: on a thread of its own, off the cooperative pool.
            // (next throws nothing: the `try?` only unwraps.)
            guard let key = try? await onDedicatedThread(named: "cravey.keys", { KeyReader.next(pasted: Self.keys) }) ?? nil else {
                return recording  // end of input: kept
            }
            switch KeyTable.action(for: key, in: .lookBack) ?? KeyTable.action(for: key, in: .shaping) {
            case .lookBack(.keep)?:
                Terminal.diagnostic("Kept \"\(Format.visible(recording.title))\".")
                return recording
            case .lookBack(.play)?:
                await playBack(waveform)
            case .lookBack(.title)?:
                // Given none yet, Enter takes the title its first words make.
                let proposed = recording.title == RecordingMetadata.automaticTitle(for: recording.createdAt) ? proposedTitle : nil
                await change(.title, current: recording.title, proposed: proposed) { metadata, text in
                    metadata.title = text.isEmpty ? proposed : text
                }
            case .lookBack(.notes)?:
                await change(.notes, current: recording.notes ?? "") { metadata, text in
                    metadata.notes = text.isEmpty ? nil : text
                }
            case .lookBack(.purpose)?:
                await change(.purpose, current: recording.purpose?.rawValue ?? "") { metadata, text in
                    metadata.purpose = try RecordingMetadata.purpose(named: text)
                }
            case .lookBack(.discard)?:
                if await discard() { return nil }
            case .setCut(let start)?:
                mark(start ? .start : .end, at: position, duration: recording.duration)
                showCut(waveform)
            case .proposeCut?:
                await proposeCut()
                showCut(waveform)
            case .hearEnd(let first)?:
                await hear(first: first)
            case .cutNow?:
                if await cutNow() {
                    waveform = try? await library.waveform(of: recording)
                    show(waveform)
                }
            case .cleanNoise?:
                if await cleanNoise() {
                    waveform = try? await library.waveform(of: recording)
                    show(waveform)
                }
            default:
                continue
            }
            Terminal.diagnostic(Self.keys)
            Terminal.diagnostic(Self.shapeKeys)
        }
    }

    /// The duration, the waveform across the terminal and the keys.
    private func show(_ waveform: Waveform?) {
        let title = Format.visible(recording.title)
        Terminal.diagnostic("\"\(title)\" · \(Format.duration(recording.duration))")
        if let proposedTitle, recording.title == RecordingMetadata.automaticTitle(for: recording.createdAt) {
            Terminal.diagnostic("Its first words make a title: \"\(Format.visible(proposedTitle))\" (t, then Enter, takes it).")
        }
        if let waveform { Terminal.diagnostic(waveform.sparkline(width: Self.width)) }
        Terminal.diagnostic(Self.keys)
        Terminal.diagnostic(Self.shapeKeys)
    }

    /// The waveform's width on the terminal.
    private static var width: Int { max(8, min(Terminal.columns - 1, 100)) }

    /// Plays the clip to the default sink, not counted, its waveform as the progress line; space
    /// pauses, `i` and `o` set the start and the end of the part to keep where it is, any other
    /// key stops.
    private mutating func playBack(_ waveform: Waveform?) async {
        guard let manager = await Self.startListening({ [library, recording, sink] in
            try await library.play(recording, options: PlaybackOptions(sink: sink, countsPlay: false))
        }) else { return }
        Terminal.diagnostic("Playing (not counted): \(KeyTable.labels(.lookBackPlaying).joined(separator: ", ")), any other key stops.")
        // `kill -USR1 PID` pauses and resumes it, as space does; ignored again afterwards.
        let pauses = OnSignals([SIGUSR1]) { manager.perform(.togglePause) }
        defer { pauses.cancel() }
        // Drawn in place, so not on a terminal that only prints lines (TERM=dumb).
        let line = Terminal.canRedraw ? ProgressLine(duration: manager.duration, waveform: waveform, colour: Terminal.isInteractive) : nil
        let drawn = Locked("")
        let marked = Locked<[(Edge, Double)]>([])
        let keys = KeyReader(redraw: { Terminal.diagnostic(drawn.withLock { $0 }, terminator: "") }) { key in
            switch KeyTable.action(for: key, in: .lookBackPlaying) {
            case .player(let command)?: manager.perform(command)
            case .setCut(let start)?: marked.withLock { $0.append((start ? .start : .end, manager.event.position)) }
            default: manager.stop()
            }
        }
        let view = Task {
            for await event in manager.events {
                guard let text = line?.draw(event) else { continue }
                Terminal.diagnostic(text, terminator: "")
                drawn.withLock { $0 = text }
            }
        }
        var summary: PlaybackSummary?
        let failure: (any Error)?
        do {
            summary = try await manager.result()
            failure = nil
        } catch {
            failure = error
        }
        await view.value
        keys.restore()
        if line != nil { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
        if let failure { Terminal.diagnostic("cravey: the play back stopped: \(Self.describe(failure))") }
        position = summary.map { $0.completed ? 0 : $0.position } ?? position
        let marks = marked.withLock { $0 }
        for (edge, at) in marks { mark(edge, at: at, duration: recording.duration) }
        if !marks.isEmpty { showCut(waveform) }
    }

    // MARK: - Trim and clean

    enum Edge { case start, end }

    /// Sets the start or the end of the part to keep at `seconds`.
    private mutating func mark(_ edge: Edge, at seconds: Double, duration: Double) {
        let at = min(max(seconds, 0), duration)
        switch edge {
        case .start: cut.start = at
        case .end: cut.end = at
        }
    }

    /// The part kept as now set: from the start mark (or 0) to the end mark (or the end).
    private var keptSpan: (start: Double, end: Double) {
        (cut.start ?? 0, cut.end ?? recording.duration)
    }

    /// The waveform with what would be cut drawn as dots, and the part kept in words.
    private func showCut(_ waveform: Waveform?) {
        let (start, end) = keptSpan
        guard end > start else {
            return Terminal.diagnostic("The end (\(ClipTime.text(end))) is before the start (\(ClipTime.text(start))): set them again.")
        }
        if let waveform, recording.duration > 0 {
            let line = Array(waveform.sparkline(width: Self.width))
            let first = Int(start / recording.duration * Double(line.count)), last = Int((end / recording.duration * Double(line.count)).rounded(.up))
            Terminal.diagnostic(String(line.enumerated().map { $0.offset >= first && $0.offset < last ? $0.element : "·" }))
        }
        Terminal.diagnostic("Keep \(ClipTime.text(start))-\(ClipTime.text(end)) of \(ClipTime.text(recording.duration)) (x cuts, [ ] hear its ends).")
    }

    /// Sets the start and the end from the clip's waveform (`trim --auto`'s proposal).
    private mutating func proposeCut() async {
        do {
            guard let proposal = try await library.proposedTrim(of: recording) else {
                return Terminal.diagnostic("No sound above the clip's own noise: nothing to propose.")
            }
            cut = (proposal.start, proposal.end)
            Terminal.diagnostic(String(format: "Proposed from the waveform: sound above %.0f dBFS (12 dB over its noise floor, at least -70, at most halfway to its loudest peak), 150 ms kept on each side.",
                                       proposal.threshold))
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error))")
        }
    }

    /// Plays the first (or last) 3 s of the part kept, not counted; any key stops.
    private func hear(first: Bool) async {
        let (start, end) = keptSpan
        guard end > start else { return Terminal.diagnostic("Set the start before the end first.") }
        let (from, to) = first ? (start, min(start + 3, end)) : (max(end - 3, start), end)
        guard let manager = await Self.startListening({ [library, recording, sink] in
            try await library.play(recording, options: PlaybackOptions(sink: sink, start: from, countsPlay: false))
        }) else { return }
        Terminal.diagnostic("Hearing \(ClipTime.text(from))-\(ClipTime.text(to)) (\(first ? "the first" : "the last") 3 s kept): any key stops.")
        let keys = KeyReader { _ in manager.stop() }
        for await event in manager.events where event.position >= to - 0.02 {
            manager.stop()
            break
        }
        _ = try? await manager.result()
        keys.restore()
    }

    /// Asks, then cuts the clip to the part kept; true when it was cut.
    private mutating func cutNow() async -> Bool {
        guard cut.start != nil || cut.end != nil else {
            Terminal.diagnostic("Nothing set to cut: set the start and the end with i and o while it plays, or a.")
            return false
        }
        let (start, end) = keptSpan
        let asked = library.version(of: recording)  // cut only while it is still the clip asked about
        guard case .line(let answer) = await Self.ask("Cut \"\(Format.visible(recording.title))\" to \(ClipTime.text(start))-\(ClipTime.text(end))? The cut parts cannot be recovered. [y/N] ", flushing: true),
              ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            Terminal.diagnostic("Nothing was cut.")
            return false
        }
        do {
            let before = recording.duration
            recording = try await library.trim(recording, from: start, to: end, asked: asked)
            cut = (nil, nil)
            position = 0
            Terminal.diagnostic("Trimmed \"\(Format.visible(recording.title))\": \(ClipTime.text(before)) -> \(ClipTime.text(recording.duration)).")
            return true
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error)) Nothing was cut.")
        }
        return false
    }

    /// Cleans the clip's noise, says by how much, lets the person compare and keep it or not;
    /// true when the cleaned clip was kept.
    private mutating func cleanNoise() async -> Bool {
        Terminal.diagnostic("Cleaning the noise...")
        do {
            let cleanup = try await library.cleanNoise(of: recording, asked: library.version(of: recording))
            Terminal.diagnostic(CleanListening.figures(cleanup))
            guard let kept = try await CleanListening(library: library, cleanup: cleanup, sink: sink).decide() else { return false }
            recording = kept
            cut = (nil, nil)
            return true
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error)) Nothing was changed.")
        }
        return false
    }

    /// The words the look back asks for, in ``LookBackChoice/questions``' order.
    private enum Field: String {
        case title, notes, purpose

        var question: String {
            LookBackChoice.questions[self == .title ? 0 : self == .notes ? 1 : 2]
        }
    }

    /// Asks for a line and changes the clip's `field` with it, as `cravey edit` would; a refusal
    /// is said and nothing changes, and so is text pasted with a line break (a field is one line).
    /// With `proposed`, the question says that Enter alone takes it.
    private mutating func change(_ field: Field, current: String, proposed: String? = nil,
                                 _ apply: @escaping @Sendable (inout RecordingMetadata, String) throws -> Void) async {
        let line: String
        let asked = library.version(of: recording)  // changed only while it is still the clip asked about
        let offered = proposed.map { " [Enter: \(Format.visible($0))]" } ?? ""
        switch await Self.ask(field.question + (current.isEmpty ? "" : " [now: \(Format.visible(current))]") + offered + ": ") {
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
                try library.edit(recording.id, asked: asked) { metadata in try apply(&metadata, line) }
            }
            if field == .title { MetadataOptions.noteTrimmed(title: line, notes: nil) }
            if field == .notes { MetadataOptions.noteTrimmed(title: nil, notes: line) }
            Terminal.diagnostic("Updated \"\(Format.visible(recording.title))\".")
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error)) Nothing was changed.")
        }
    }

    /// Asks, and deletes the clip on yes; true when it is gone.
    private func discard() async -> Bool {
        // Only what is typed after the question counts: a key typed ahead is no answer.
        let asked = library.version(of: recording)  // discarded only while it is still the clip asked about
        switch await Self.ask(LookBackChoice.discardQuestion + " ", flushing: true) {
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
            _ = try await onDedicatedThread(named: "cravey.delete") { [library, recording] in try library.delete(recording.id, asked: asked) }
            Terminal.diagnostic("Discarded \"\(Format.visible(recording.title))\".")
            return true
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error)) The clip was kept.")
        }
        return false
    }

    /// Starts a play the look back makes (not counted); nil, the failure said, when it cannot.
    static func startListening(_ start: () async throws -> PlaybackManager) async -> PlaybackManager? {
        do {
            return try await start()
        } catch {
            Terminal.diagnostic("cravey: \(describe(error))")
            return nil
        }
    }

    /// What a person reads of `error`.
    static func describe(_ error: any Error) -> String {
        (error as? CraveyError).map { Messages.text(for: $0) } ?? "\(error)"
    }

    /// What is typed after `question` (``Terminal/ask(_:flushing:)``), read off the cooperative pool.
    private static func ask(_ question: String, flushing: Bool = false) async -> Terminal.Answer {
        // ask throws nothing: the `try?` only unwraps.
        (try? await onDedicatedThread(named: "cravey.keys") { Terminal.ask(question, flushing: flushing) }) ?? .ended
    }
}
