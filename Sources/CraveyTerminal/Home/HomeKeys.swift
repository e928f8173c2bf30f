import CraveyKit

/// What a key does on the home screen, by mode: browsing (the key table, ``KeyTable``), the
/// filter and the prompts (a line typed), a question's answer, the help. A paste is text
/// wherever it lands, never keys.
enum HomeKeys {
    /// What `key` does to `state`, and the effects to carry out.
    static func handle(_ key: Key, _ state: inout HomeState) -> [HomeEffect] {
        // The filter typed ahead is read once, before the first key that does not type it.
        let typesFilter = if case .filtering = state.dialog.mode { key.editsLine } else { false }
        if !typesFilter { state.updateList { try $0.readTypedFilter() } }
        if state.quitting { return [] }
        if case .paste(let text) = key {
            paste(text, &state)
            return []
        }
        state.dialog.message = nil
        switch state.dialog.mode {
        case .help:
            state.dialog.mode = .browsing
            return []
        case .filtering:
            return filter(key, &state)
        case .prompt(let prompt):
            return type(key, into: prompt, &state)
        case .confirm(_, let asked, let yes):
            return answer(key, asked: asked, yes: yes, &state)
        case .cleanUp:
            return HomeLookBack.tell(.key(key), &state)
        case .reminders(let view):
            return HomeReminders.key(key, view, &state)
        case .removeReminder(let reminder, let view):
            return HomeReminders.confirm(key, removing: reminder, view, &state)
        case .browsing:
            for context in KeyBinding.Context.home where state.media.applies(context) {
                if let effects = handle(key, in: context, &state) { return effects }
            }
            return []
        }
    }

    /// What `key` does in `context`; nil when it is not one of its keys (the next context's
    /// then). A recording under way refuses the keys that start other work; a click on the
    /// player line is the player's; the look back's are its own (``HomeLookBack``), and another
    /// key closes it, then is the list's.
    private static func handle(_ key: Key, in context: KeyBinding.Context, _ state: inout HomeState) -> [HomeEffect]? {
        switch context {
        case .recording:
            if state.media.capture?.markers.labelling != nil { return label(key, &state) }
            if let action = KeyTable.action(for: key, in: .recording) { return act(action, key, &state) }
            guard let action = KeyTable.action(for: key, in: .browsing), action.needsRecorder else { return nil }
            state.dialog.say("A recording is under way: Enter or s stops and saves it first.")
            return []
        case .playing:
            if state.media.playing?.markers.labelling != nil { return label(key, &state) }
            if case .click(let row, let column) = key, row == state.view.layout.player {
                guard let bar = HomeFrame.playerBar(state), bar.contains(column) else { return [] }
                return [.player(.seek(fraction: Double(column - bar.lowerBound) / Double(ProgressLine.width)))]
            }
            return KeyTable.action(for: key, in: .playing).map { act($0, key, &state) }
        case .lookBack:
            return HomeLookBack.key(key, &state)
        case .browsing:
            if case .click(let row, let column) = key { return click(row: row, column: column, &state) }
            return act(KeyTable.action(for: key, in: .browsing), key, &state)
        default:
            return nil  // another screen's keys
        }
    }

    /// Does what the key table says `key` does.
    private static func act(_ action: KeyAction?, _ key: Key, _ state: inout HomeState) -> [HomeEffect] {
        guard let action else { return [] }
        let rows = state.list.rows
        switch action {
        case .move(let offset): state.updateList { try $0.move(by: offset) }
        case .movePage(let forward): state.updateList { try $0.move(by: forward ? rows : -rows) }
        case .first: state.updateList { try $0.select(0) }
        case .last: state.updateList { try $0.select($0.page.matching - 1) }
        case .scroll(let offset): state.updateList { try $0.scroll(by: offset) }
        case .sort: state.updateList { try $0.nextSort() }
        case .filter: state.dialog.mode = .filtering
        case .clearFilter:
            if !state.list.request.filter.isEmpty { state.updateList { try $0.filter("") } }
        case .play:
            // From the first word of the filter said in it, when its transcript holds them.
            if let recording = state.list.selectedRecording {
                return play(recording, from: state.list.page.matches[recording.id]?.at ?? 0, &state)
            }
        case .quickPlay:
            return quickPlay(key, &state)
        case .record(let video):
            guard state.media.capture == nil, !state.media.recorderBusy else { return [] }
            return [.record(video: video)]
        case .edit:
            if let recording = state.list.selectedRecording {
                let asked = state.library.version(of: recording)
                state.dialog.mode = .prompt(HomeMode.Prompt(field: 0, of: asked, purpose: .edit(asked, answers: [])))
            }
        case .delete:
            if let recording = state.list.selectedRecording {
                state.dialog.mode = .confirm(question: "Delete \"\(Format.visible(recording.title))\"? This cannot be undone. [y/N]",
                                             asked: state.library.version(of: recording), yes: .delete)
            }
        case .cut:
            if let recording = state.list.selectedRecording { return [.proposeCut(state.library.version(of: recording), lookBack: false)] }
        case .deleteAll: state.dialog.say("Deleting every clip is a command of its own: `cravey delete-all`.")
        case .reminders: return HomeReminders.open(&state)
        case .help: state.dialog.mode = .help
        case .redraw: return [.redrawAll]
        case .quit, .saveAndQuit: return state.quit()
        case .player(let command): return [.player(command)]
        case .mark, .jumpMarker: return marker(key, action, &state)
        case .pauseRecording: return [.pauseRecording]
        case .stopRecording: return [.stopRecording]
        case .lookBack, .clickBar, .skipSilence, .setCut, .proposeCut, .hearEnd, .cutNow, .cleanNoise, .listen, .keepCleaned, .keepAsItWas,
             .switchCleaned, .yes, .addReminder, .changeReminder, .pauseReminder, .removeReminder, .closeReminders:
            break  // other screens' actions
        }
        return []
    }

    /// Plays `recording` on the player line (a play under way is stopped, and counted, first).
    static func play(_ recording: Recording, counted: Bool = true, from start: Double = 0, _ state: inout HomeState) -> [HomeEffect] {
        guard state.media.capture == nil, !state.media.recorderBusy else {
            state.dialog.say("A recording is under way: Enter or s stops it first.")
            return []
        }
        let stop: [HomeEffect] = state.media.playing != nil ? [.player(.stop)] : []
        guard state.media.startingPlay == nil else { return stop }
        state.media.startingPlay = recording
        return stop + [.play(recording, counted: counted, speed: state.media.speed, from: start)]
    }

    /// 1, 2 or 3: plays that clip of Quick Play, or says what Quick Play holds.
    private static func quickPlay(_ key: Key, _ state: inout HomeState) -> [HomeEffect] {
        guard case .character(let digit) = key, let number = digit.wholeNumberValue else { return [] }
        let quickPlay = state.list.page.quickPlay
        if quickPlay.indices.contains(number - 1) { return play(quickPlay[number - 1], &state) }
        state.dialog.say(quickPlay.isEmpty ? "Quick Play is empty: press r to record your first clip."
            : "Quick Play has \(quickPlay.count) clip\(quickPlay.count == 1 ? "" : "s").")
        return []
    }

    /// A click: a row of the list selects it, a row of Quick Play plays it.
    private static func click(row: Int, column: Int, _ state: inout HomeState) -> [HomeEffect] {
        let layout = state.view.layout
        if layout.list.contains(row) {
            state.updateList { try $0.select(shownRow: row - layout.list.lowerBound) }
        } else if let index = layout.quickPlayRows.firstIndex(of: row), state.list.page.quickPlay.indices.contains(index) {
            return play(state.list.page.quickPlay[index], &state)
        }
        return []
    }

    /// Typing the filter: the list follows the keys typed (read once for those read at once).
    private static func filter(_ key: Key, _ state: inout HomeState) -> [HomeEffect] {
        switch key {
        case .enter, .tab:
            state.dialog.mode = .browsing
        case .escape:
            state.dialog.mode = .browsing
            state.list.type(filter: "")
        case .down, .up, .pageDown, .pageUp, .wheelUp, .wheelDown, .click:
            state.updateList { try $0.readTypedFilter() }
            return handle(key, in: .browsing, &state) ?? []
        default:
            if let text = key.edit(state.list.typedFilter) { typeFilter(text, &state) }
        }
        return []
    }

    /// The filter typed or pasted further, if it is within the longest a library takes.
    private static func typeFilter(_ text: String, _ state: inout HomeState) {
        guard text.count <= RecordingLibrary.maxFilterLength else {
            return state.dialog.say("A filter is at most \(RecordingLibrary.maxFilterLength) characters: the rest was not taken.", warning: true)
        }
        state.list.type(filter: text)
    }

    /// A key typed into a prompt: Enter answers, Escape gives up, the rest edit the line.
    private static func type(_ key: Key, into prompt: HomeMode.Prompt, _ state: inout HomeState) -> [HomeEffect] {
        var prompt = prompt
        switch key {
        case .escape:
            state.dialog.mode = prompt.after
            state.dialog.say("Nothing was changed.")
            return []
        case .enter:
            state.dialog.mode = prompt.after
            return answered(prompt, &state)
        default:
            if let text = key.edit(prompt.text) { prompt.text = text }
            state.dialog.mode = .prompt(prompt)
            return []
        }
    }

    /// A line answered: the next question of `e`, or the change.
    private static func answered(_ prompt: HomeMode.Prompt, _ state: inout HomeState) -> [HomeEffect] {
        switch prompt.purpose {
        case .edit(let asked, var answers):
            answers.append(prompt.text)
            guard answers.count == HomeMode.Prompt.questions.count else {
                state.dialog.mode = .prompt(HomeMode.Prompt(field: answers.count, of: asked, purpose: .edit(asked, answers: answers)))
                return []
            }
            return [.edit(asked, answers.enumerated().map { HomeEffect.Answer(field: $0.offset, text: $0.element) })]
        case .lookBack(let asked, let field):
            return [.edit(asked, [HomeEffect.Answer(field: field, text: prompt.text)])]
        case .reminder(let reminder, let view, let answers):
            return HomeReminders.answered(prompt.text, of: reminder, view, answers: answers, &state)
        }
    }

    /// A key answering the question on the status line: `y` does it, another key declines. A key
    /// typed before the question showed is no answer: it is dropped.
    private static func answer(_ key: Key, asked: ClipVersion, yes: HomeMode.Confirmed, _ state: inout HomeState) -> [HomeEffect] {
        guard state.dialog.questionShown else { return [] }
        state.dialog.mode = .browsing
        guard KeyTable.action(for: key, in: .question) == .yes else {
            state.dialog.say(yes.declined(asked.recording))
            return []
        }
        let stop: [HomeEffect] = state.media.playing?.recording.id == asked.recording.id ? [.player(.stop)] : []
        switch yes {
        case .delete, .discard:
            return stop + [.remove(asked, yes)]
        case .cut(let start, let end):
            state.dialog.say("Cutting \"\(Format.visible(asked.recording.title))\"...")
            return stop + [.cut(asked, start: start, end: end)]
        }
    }

    /// A paste: text, never keys. The filter takes it (its line breaks and control characters as
    /// spaces); a line typed takes it unless it holds a line break (as `cravey record`'s look
    /// back, a line is one line); anywhere else it is no key, and no answer to a question.
    private static func paste(_ text: String, _ state: inout HomeState) {
        switch state.dialog.mode {
        case .filtering:
            let words = text.split(whereSeparator: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } })
            typeFilter(state.list.typedFilter + words.joined(separator: " "), &state)
        case .prompt(var prompt):
            guard !text.contains(where: \.isNewline) else { return refuseLineBreak(&state) }
            state.dialog.message = nil
            prompt.text += text
            state.dialog.mode = .prompt(prompt)
        case .confirm(_, let asked, let yes):
            state.dialog.mode = .browsing
            state.dialog.say("Pasted text is no answer. \(yes.declined(asked.recording))", warning: true)
        case .removeReminder(let reminder, let view):
            state.dialog.mode = .reminders(view)
            state.dialog.say("Pasted text is no answer. Kept reminder \(reminder.number ?? 0).", warning: true)
        case .browsing where state.media.capture?.markers.labelling != nil:
            if state.media.capture?.markers.paste(text) != true {
                state.dialog.say("A marker's label is one line of at most \(ClipMarker.maxLabelLength) characters: the paste was not taken.", warning: true)
            }
        case .browsing where state.media.playing?.markers.labelling != nil:
            if state.media.playing?.markers.paste(text) != true {
                state.dialog.say("A marker's label is one line of at most \(ClipMarker.maxLabelLength) characters: the paste was not taken.", warning: true)
            }
        case .browsing, .help, .cleanUp, .reminders:
            state.dialog.say("Pasted text is not a key: nothing was done.", warning: true)
        }
    }

    /// A key while a marker's label is typed on the player line (a space too): the label's (Enter keeps it,
    /// Escape leaves the marker without one); any other key does nothing until then.
    private static func label(_ key: Key, _ state: inout HomeState) -> [HomeEffect] {
        marker(key, nil, &state)
    }

    /// What a marker's key does to the recording or the play on the player line
    /// (``MarkerKeys``): a recording's markers are kept until it is saved (``HomeWork``).
    private static func marker(_ key: Key, _ action: KeyAction?, _ state: inout HomeState) -> [HomeEffect] {
        if let elapsed = state.media.capture?.level?.elapsed {
            _ = state.media.capture?.markers.handle(key, action, at: elapsed)
            return []
        }
        guard let position = state.media.playing?.event.position,
              let effect = state.media.playing?.markers.handle(key, action, at: position), let playing = state.media.playing else { return [] }
        switch effect {
        case .store(let marker): return [.mark(playing.recording.id, marker)]
        case .seek(let seconds):
            let duration = playing.event.duration
            return duration > 0 ? [.player(.seek(fraction: min(seconds / duration, 1)))] : []
        case .nothing, .notMine: return []
        }
    }

    /// A line break pasted into a line typed: the line is refused, nothing changed.
    static func refuseLineBreak(_ state: inout HomeState) {
        guard case .prompt(let prompt) = state.dialog.mode else { return }
        state.dialog.mode = prompt.after
        state.dialog.say(prompt.lineBreakRefused, warning: true)
    }
}
