import CraveyKit
import Dispatch
import Foundation

/// The look back after a recording stops, on a terminal: its duration and waveform, and keys to
/// play it back (never counted), set its title, notes and purpose (as `cravey edit` does, with
/// its refusals), trim it (the start and end set at the play position, or proposed from its
/// waveform, the first and last 3 s of what is kept heard first), clean its noise (before and
/// after compared), discard it, or keep it (Enter or Escape).
///
/// The loop around ``LookBackState``: a key read, the state's effects carried out (the plays,
/// the questions and the changes through the door), what they end with given back as events,
/// and the lines the state shows printed.
///
/// The clip is saved durably before this starts, so every way out that is not a confirmed
/// discard keeps it: Enter, Escape, end of input, a closed terminal (SIGHUP), Ctrl-C, SIGTERM.
package struct Preview {
    let library: RecordingLibrary
    /// The look back as it stands; every change of its clip is at once what a signal keeps.
    private var state: LookBackState {
        didSet { kept.withLock { $0 = state.recording } }
    }
    /// What a signal keeps, shared with its handler (which runs on a thread of its own).
    private let kept: Locked<Recording>
    /// The sink to play it back to (`--device` is the recording's source, so the default sink).
    let sink: String?
    /// The recording's SIGINT, SIGTERM and SIGHUP, which keep the clip from here on.
    let signals: OnSignals

    /// The keys lines: the look back's choices, then its keys that shape the clip.
    static let keys = KeyTable.line(.lookBack), shapeKeys = KeyTable.line(.shaping)

    /// The loudness clips play at (`play.loudness`), which the look back plays this one at.
    let loudness: Double

    package init(library: RecordingLibrary, recording: Recording, sink: String?, loudness: Double, signals: OnSignals) {
        (self.library, self.sink, self.loudness, self.signals) = (library, sink, loudness, signals)
        kept = Locked(recording)
        // The title the first words said make (``Transcript/proposedTitle``), for a clip given
        // none that has a transcript.
        let proposedTitle = recording.title == RecordingMetadata.automaticTitle(for: recording.createdAt)
            ? library.transcripts.transcript(of: recording)?.proposedTitle : nil
        state = LookBackState(recording: recording, waveform: nil, proposedTitle: proposedTitle, width: Self.width)
    }

    /// The clip as it now stands.
    private var recording: Recording { state.recording }

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
                Terminal.exit(reporting: error)  // a full disk is 73, as everywhere
            }
            Foundation.exit(0)
        }
        do {
            _ = state.apply(.shaped(recording, waveform: try await library.analysis.waveform(of: recording), trimmed: false))
        } catch {
            Terminal.diagnostic("cravey: warning: the waveform cannot be drawn: \(Self.describe(error))")
        }
        show(.header)
        while true {
            // Reading the terminal blocks: on a thread of its own, off the cooperative pool.
            // (next throws nothing: the `try?` only unwraps.)
            guard let key = try? await onDedicatedThread(named: "cravey.keys", { KeyReader.next(pasted: Self.keys) }) ?? nil else {
                return recording  // end of input: kept
            }
            state.width = Self.width
            var effects = state.apply(.key(key))
            while !effects.isEmpty {
                switch await perform(effects.removeFirst()) {
                case .event(let event): effects = state.apply(event) + effects
                case .ended(let kept): return kept
                case .done: continue
                }
            }
        }
    }

    /// What carrying out an effect came to.
    private enum Outcome {
        /// Something the state is told.
        case event(LookBackState.Event)
        /// The look back is over: the clip kept (nil: discarded).
        case ended(Recording?)
        case done
    }

    /// Carries out one of the state's effects.
    private func perform(_ effect: LookBackState.Effect) async -> Outcome {
        switch effect {
        case .show(let part): show(part)
        case .say(let text): Terminal.diagnostic(text)
        case .keep: return .ended(recording)
        case .discard: if await discard() { return .ended(nil) }
        case .playBack: return .event(await playBack())
        case .hear(let from, let to, let first): await hear(from: from, to: to, first: first)
        case .ask(let field, let current, let proposed): return await change(field, current: current, proposed: proposed).map { .event(.edited($0)) } ?? .done
        case .proposeCut: return await proposeCut().map { .event($0) } ?? .done
        case .cutTo(let start, let end): return await cut(from: start, to: end).map { .event($0) } ?? .done
        case .cleanNoise: return await cleanNoise().map { .event($0) } ?? .done
        }
        return .done
    }

    /// Prints the lines of `part` as the state now stands.
    private func show(_ part: LookBackState.Part) {
        for line in state.lines(part) { Terminal.diagnostic(line) }
    }

    /// The waveform's width on the terminal.
    private static var width: Int { max(8, min(Terminal.columns - 1, 100)) }

    /// Plays the clip to the default sink, not counted, its waveform as the progress line; space
    /// pauses, `i` and `o` set the start and the end of the part to keep where it is, any other
    /// key stops (the look back's playing keys in ``KeyTable``).
    private func playBack() async -> LookBackState.Event {
        let options = CleanListening.listening(sink: sink, loudness: loudness)
        guard let manager = await Self.startListening({ [library, recording] in
            try await library.play(recording, options: options)
        }) else { return .playedBack(at: nil, marks: []) }
        Terminal.diagnostic("Playing (not counted): \(KeyTable.labels(.lookBackPlaying).joined(separator: ", ")), any other key stops.")
        // `kill -USR1 PID` pauses and resumes it, as space does; ignored again afterwards.
        let pauses = OnSignals([SIGUSR1]) { manager.perform(.togglePause) }
        defer { pauses.cancel() }
        // Drawn in place, so not on a terminal that only prints lines (TERM=dumb).
        let line = Terminal.canRedraw ? ProgressLine(duration: manager.duration, waveform: state.waveform, colour: Terminal.isInteractive) : nil
        let drawn = Locked("")
        let marked = Locked<[(start: Bool, at: Double)]>([])
        let keys = KeyReader(redraw: { Terminal.diagnostic(drawn.withLock { $0 }, terminator: "") }) { key in
            switch KeyTable.action(for: key, in: .lookBackPlaying) {
            case .player(let command)?: manager.perform(command)
            case .setCut(let start)?: marked.withLock { $0.append((start, manager.event.position)) }
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
        return .playedBack(at: summary.map { $0.completed ? 0 : $0.position }, marks: marked.withLock { $0 })
    }

    // MARK: - Trim and clean

    /// The look back's changes through the door, shared with the home screen's.
    private var work: LookBackWork { LookBackWork(library: library) }

    /// The part to keep proposed from the clip's waveform; nothing when it cannot be read.
    private func proposeCut() async -> LookBackState.Event? {
        do {
            return .proposed(try await work.propose(recording))
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error))")
            return nil
        }
    }

    /// Plays `from`-`to`, the first (or last) 3 s of the part kept, not counted; any key stops.
    private func hear(from: Double, to: Double, first: Bool) async {
        let options = CleanListening.listening(sink: sink, from: from, loudness: loudness)
        guard let manager = await Self.startListening({ [library, recording] in
            try await library.play(recording, options: options)
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

    /// Asks, then cuts the clip to `start`-`end`; the clip cut, or nil.
    private func cut(from start: Double, to end: Double) async -> LookBackState.Event? {
        let asked = library.version(of: recording)  // cut only while it is still the clip asked about
        guard case .line(let answer) = await Self.ask(LookBackState.cutQuestion(recording, start: start, end: end, titled: true) + " ", flushing: true),
              ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            Terminal.diagnostic("Nothing was cut.")
            return nil
        }
        do {
            let trimmed = try await work.cut(asked, from: start, to: end)
            return .shaped(trimmed, waveform: try? await library.analysis.waveform(of: trimmed), trimmed: true)
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error)) Nothing was cut.")
        }
        return nil
    }

    /// Cleans the clip's noise, says by how much, lets the person compare and keep it or not;
    /// the cleaned clip when it was kept, or nil.
    private func cleanNoise() async -> LookBackState.Event? {
        Terminal.diagnostic("Cleaning the noise...")
        do {
            let cleanup = try await work.clean(library.version(of: recording))
            Terminal.diagnostic(CleanListening.figures(cleanup))
            guard let kept = try await CleanListening(library: library, cleanup: cleanup, sink: sink, loudness: loudness).decide() else { return nil }
            return .shaped(kept, waveform: try? await library.analysis.waveform(of: kept), trimmed: false)
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error)) Nothing was changed.")
        }
        return nil
    }

    /// Asks for a line and changes the clip's `field` (the title, notes or purpose) with it, as
    /// `cravey edit` would; a refusal is said and nothing changes, and so is text pasted with a
    /// line break (a field is one line). With `proposed`, the question says that Enter alone
    /// takes it. The clip as changed, or nil.
    private func change(_ field: LookBackChoice, current: String, proposed: String?) async -> Recording? {
        let name = field == .notes ? "notes" : field == .purpose ? "purpose" : "title"
        let line: String
        let asked = library.version(of: recording)  // changed only while it is still the clip asked about
        let offered = proposed.map { " [Enter: \(Format.visible($0))]" } ?? ""
        let question = LookBackChoice.questions[field.field ?? 0]
        switch await Self.ask(question + (current.isEmpty ? "" : " [now: \(Format.visible(current))]") + offered + ": ") {
        case .line(let typed):
            line = typed
        case .pasted:
            Terminal.diagnostic("cravey: the text held a line break (pasted?), and the \(name) is one line: it was not taken, nor anything after it. Nothing was changed.")
            return nil
        case .ended:
            return nil
        }
        do {
            let changed = try await work.edit(asked, [(field.field ?? 0, line.isEmpty ? proposed ?? "" : line)])
            if field == .title { Terminal.noteTrimmed(title: line, notes: nil) }
            if field == .notes { Terminal.noteTrimmed(title: nil, notes: line) }
            // What a signal keeps from now, before "Updated" is said: a SIGTERM right after it
            // said `Kept "<the old title>"` (a clean-clone run), the state not yet told.
            kept.withLock { $0 = changed }
            Terminal.diagnostic("Updated \"\(Format.visible(changed.title))\".")
            return changed
        } catch {
            Terminal.diagnostic("cravey: \(Self.describe(error)) Nothing was changed.")
            return nil
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
            _ = try await work.discard(asked)
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
