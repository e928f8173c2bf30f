import CraveyKit

/// The look back in the home screen: `cravey record`'s own (``LookBackState``: the same state,
/// keys and changes), told the keys and what the work ends with, its effects turned into the
/// screen's (a play on the player line, a line typed or a question on the status line, a change
/// through the door), and a clean-up compared (``CleanUpState``) on the player and status lines.
/// Only the drawing (``HomeFrame``) and where the keys come from differ from ``Preview``.
enum HomeLookBack {
    /// What `key` does to the look back open; nil when it is none of its keys: the look back
    /// closes, and the key is the list's. `?` is the help, the look back's keys first, and
    /// leaves it open.
    static func key(_ key: Key, _ state: inout HomeState) -> [HomeEffect]? {
        if KeyTable.action(for: key, in: .browsing) == .help, state.media.lookBack != nil {
            state.dialog.mode = .help
            return []
        }
        guard let lookBack = state.media.lookBack, LookBackState.action(for: key) != nil else {
            state.media.lookBack = nil
            return nil
        }
        return tell(.key(key), about: lookBack.recording.id, &state)
    }

    /// Tells the look back, when it is open on the clip `id`, `event`, and carries out what it
    /// asks for.
    @discardableResult
    static func tell(_ event: LookBackState.Event, about id: RecordingID, _ state: inout HomeState) -> [HomeEffect] {
        guard var lookBack = state.media.lookBack, lookBack.recording.id == id else { return [] }
        let effects = lookBack.apply(event)
        state.media.lookBack = lookBack
        return effects.flatMap { carry($0, lookBack, &state) }
    }

    /// One of the look back's effects, as the screen carries it out.
    private static func carry(_ effect: LookBackState.Effect, _ lookBack: LookBackState, _ state: inout HomeState) -> [HomeEffect] {
        let clip = lookBack.recording, asked = state.library.version(of: clip)
        switch effect {
        case .show: break  // the frame draws the state
        case .say(let text): state.dialog.say(text)
        case .keep: state.media.lookBack = nil
        case .playBack: return HomeKeys.play(clip, counted: false, &state)
        case .hear(let from, let to, let first):
            let effects = HomeKeys.play(clip, counted: false, from: from, &state)
            state.media.hearingUntil = to
            state.dialog.say("Hearing \(ClipTime.text(from))-\(ClipTime.text(to)) (\(first ? "the first" : "the last") 3 s kept): Esc stops.")
            return effects
        case .ask(let field, _, let proposed):
            let index = field.field ?? 0
            var prompt = HomeMode.Prompt(field: index, of: asked, purpose: .lookBack(asked, field: index))
            // Filled in with the title its first words make, for a clip given none.
            if let proposed { prompt.text = proposed }
            state.dialog.mode = .prompt(prompt)
        case .proposeCut: return [.proposeCut(asked, lookBack: true)]
        case .cutTo(let start, let end):
            // The clip's title heads its details above: the question fits 80 columns without it.
            let question = LookBackState.cutQuestion(clip, start: start, end: end, titled: false)
            state.dialog.mode = .confirm(question: question, asked: asked, yes: .cut(start: start, end: end))
        case .cleanNoise:
            state.dialog.say("Cleaning the noise...")
            return stop(clip, state) + [.cleanNoise(asked)]
        case .discard: state.dialog.mode = .confirm(question: LookBackChoice.discardQuestion, asked: asked, yes: .discard)
        }
        return []
    }

    /// Stops the play of `clip`, when it plays.
    private static func stop(_ clip: Recording, _ state: HomeState) -> [HomeEffect] {
        state.media.playing?.recording.id == clip.id ? [.player(.stop)] : []
    }

    // MARK: - The clean-up

    /// A clean-up made (`c`): compared and kept or not on the status line (`cravey clean`'s
    /// keys); none once quitting.
    static func cleaned(figures: String, _ state: inout HomeState) -> [HomeEffect] {
        guard !state.quitting else { return [.settleCleanUp(keep: false)] }
        state.dialog.mode = .cleanUp(CleanUpState(), figures: figures)
        return []
    }

    /// Tells the clean-up being compared `event`, and carries out what it asks for.
    static func tell(_ event: CleanUpState.Event, _ state: inout HomeState) -> [HomeEffect] {
        guard case .cleanUp(var cleanUp, let figures) = state.dialog.mode else { return [] }
        let effects = cleanUp.apply(event)
        state.dialog.mode = .cleanUp(cleanUp, figures: figures)
        return effects.flatMap { effect -> [HomeEffect] in
            switch effect {
            case .askKey: return []
            case .listen(let cleaned, let from): return [.hearCleanUp(cleaned: cleaned, from: from)]
            case .perform(let command): return [.player(command)]
            case .stop: return [.player(.stop)]
            case .keepCleaned, .keepAsItWas:
                state.dialog.mode = .browsing
                let keep = effect == .keepCleaned
                if !keep, let clip = state.media.lookBack?.recording { state.dialog.say("Kept \"\(Format.visible(clip.title))\" as it was.") }
                return (state.media.playing != nil ? [.player(.stop)] : []) + [.settleCleanUp(keep: keep)]
            }
        }
    }
}
