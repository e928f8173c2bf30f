import CraveyKit
import Foundation

/// What the home screen draws where (``HomeLayout``), a function of its state: each frame is
/// drawn whole as text (``TerminalFrame``), and ncurses writes to the terminal only what differs
/// from the last.
struct HomeFrame {
    private let state: HomeState
    private var frame: TerminalFrame
    /// The columns of the player line's bar, once drawn.
    private var bar: Range<Int>?
    private var layout: HomeLayout { state.view.layout }

    /// The frame that shows `state`.
    static func draw(_ state: HomeState) -> TerminalFrame {
        var drawing = HomeFrame(state: state, frame: TerminalFrame(rows: state.view.layout.rows, columns: state.view.layout.columns))
        drawing.draw()
        return drawing.frame
    }

    /// The columns of the player line's bar, while it shows one.
    static func playerBar(_ state: HomeState) -> Range<Int>? {
        var drawing = HomeFrame(state: state, frame: TerminalFrame(rows: state.view.layout.rows, columns: state.view.layout.columns))
        drawing.drawPlayer()
        return drawing.bar
    }

    private mutating func draw() {
        guard layout.fits else {
            frame.put("cravey needs at least \(HomeLayout.smallest.columns)x\(HomeLayout.smallest.rows)", row: 0, column: 0)
            frame.put("(now \(layout.columns)x\(layout.rows))", row: 1, column: 0)
            return
        }
        drawHeader()
        if case .help = state.dialog.mode {
            drawHelp()
        } else if let reminders = HomeReminders.shown(state.dialog.mode) {
            if reminders.showsHelp { drawHelp() } else { drawReminders(reminders) }
        } else {
            drawQuickPlay()
            drawLibrary()
            drawDetails()
            drawLookBack()
        }
        drawPlayer()
        frame.cursor = drawStatus()
    }

    private mutating func drawHeader() {
        let page = state.list.page
        frame.put(" cravey", row: layout.header, column: 0, style: .bold)
        let clips = "\(page.total) clip\(page.total == 1 ? "" : "s") · ? help "
        // "… of": the filter's matches are being counted.
        let right = state.list.request.filter.isEmpty ? clips : "\(page.counted ? String(page.matching) : "…") of \(clips)"
        frame.put(right, row: layout.header, column: max(layout.columns - TerminalScreen.width(of: right), 8))
        // The last sync, between the two, where the library syncs.
        if let synced = state.sync.text {
            frame.put(synced, row: layout.header, column: 9, width: layout.columns - TerminalScreen.width(of: right) - 11,
                      style: state.sync.failed ? .warning : .dim)
        }
    }

    private mutating func drawQuickPlay() {
        let clips = state.list.page.quickPlay
        guard let heading = layout.quickPlayHeading else {
            // One row: "Quick Play  1 Breathe · 2 Walk · 3 Ten minutes".
            let used = frame.put(" Quick Play ", row: layout.quickPlayRows[0], column: 0, style: .bold)
            let text = clips.isEmpty ? "empty: r records your first clip"
                : clips.enumerated().map { "\($0.offset + 1) \(Format.visible($0.element.title))" }.joined(separator: " · ")
            frame.put(text, row: layout.quickPlayRows[0], column: used, style: clips.isEmpty ? .dim : .plain)
            return
        }
        frame.put(" Quick Play", row: heading, column: 0, style: .bold)
        guard !clips.isEmpty else {
            frame.put("   Nothing here yet: press r to record your first clip, then play it in a hard moment.",
                      row: layout.quickPlayRows[0], column: 0, style: .dim)
            frame.put("   The clips you play most show here; 1, 2 and 3 play them at once.", row: layout.quickPlayRows[1],
                      column: 0, style: .dim)
            return
        }
        let width = layout.columns - 24
        for (index, recording) in clips.enumerated() {
            let row = layout.quickPlayRows[index]
            frame.put("  \(index + 1)", row: row, column: 0, style: .accent)
            frame.put("\(HomeText.icon(recording)) \(Format.visible(recording.title))", row: row, column: 4, width: width - 1)
            // A pinned clip is there whatever its count (`cravey pin`): said instead of its plays.
            let plays = recording.pinnedSlot != nil ? "pinned" : "\(recording.playCount) play\(recording.playCount == 1 ? "" : "s")"
            frame.put(HomeText.right(Format.duration(recording.duration), 8) + HomeText.right(plays, 11), row: row, column: layout.columns - 20)
        }
    }

    private mutating func drawLibrary() {
        let list = state.list
        let order = switch list.request.sort {
        case .recent: "recent"
        case .mostPlayed: "most played"
        case .title: "title"
        }
        var heading = " Library · \(order)"
        if !list.request.filter.isEmpty { heading += " · filter: \(Format.visible(list.request.filter))" }
        let columns = layout.listColumns
        let labelled = frame.put(heading, row: layout.libraryHeading, column: 0, width: columns.title + 2, style: .bold)
        var column = max(columns.title + 3, labelled + 1)
        if let width = columns.date {
            frame.put("made", row: layout.libraryHeading, column: column, style: .dim)
            column += width
        }
        frame.put(HomeText.right("length", columns.length - 1) + HomeText.right("plays", columns.plays), row: layout.libraryHeading,
                  column: column, style: .dim)
        column += columns.length + columns.plays
        if columns.purpose != nil { frame.put(" purpose", row: layout.libraryHeading, column: column, style: .dim) }
        guard !list.page.rows.isEmpty else {
            let empty = list.page.total == 0
                ? "   The library is empty. Press r to record a clip, or run `cravey import FILE`."
                : "   No clip holds \"\(Format.visible(list.request.filter))\", written or said. Escape clears the filter."
            if let row = layout.list.first { frame.put(empty, row: row, column: 0, style: .dim) }
            return
        }
        for (offset, row) in layout.list.enumerated() {
            let position = list.request.first + offset
            let index = position - list.page.first
            guard list.page.rows.indices.contains(index) else { break }
            drawRow(list.page.rows[index], row: row, selected: position == list.selected)
        }
    }

    private mutating func drawRow(_ recording: Recording, row: Int, selected: Bool) {
        let columns = layout.listColumns
        let style: TerminalScreen.Style = selected ? .selected : .plain
        if selected { frame.fill(row: row, style: style) }
        var column = 1
        frame.put("\(HomeText.icon(recording)) \(Format.visible(recording.title))", row: row, column: column, width: columns.title + 1, style: style)
        column += columns.title + 2
        // A clip whose words hold the filter: when the first is said, and the words around it.
        if let spoken = state.list.page.matches[recording.id], let at = spoken.at {
            let snippet = spoken.snippet.replacingOccurrences(of: LibraryPage.Match.markStart, with: "[")
                .replacingOccurrences(of: LibraryPage.Match.markEnd, with: "]")
            frame.put("\(Format.duration(at.rounded(.down))) “\(Format.visible(snippet))”", row: row, column: column,
                      width: max(layout.columns - column - 1, 0), style: style)
            return
        }
        if let width = columns.date {
            let date = columns.shortDate ? HomeText.shortDate(recording.createdAt) : Format.date(recording.createdAt)
            frame.put(date, row: row, column: column, width: width, style: style)
            column += width
        }
        frame.put(HomeText.right(Format.duration(recording.duration), columns.length - 1), row: row, column: column, style: style)
        column += columns.length
        frame.put(HomeText.right(String(recording.playCount), columns.plays - 1), row: row, column: column, style: style)
        column += columns.plays
        if let width = columns.purpose {
            frame.put(" " + (recording.purpose?.rawValue ?? ""), row: row, column: column, width: width, style: style)
        }
    }

    private mutating func drawDetails() {
        let rows = layout.details
        guard let recording = state.media.lookBack?.recording ?? state.list.selectedRecording, let last = rows.last else { return }
        let plays = "\(recording.playCount) play\(recording.playCount == 1 ? "" : "s")"
        let loudness = switch recording.loudness {
        case nil: "loudness not measured"
        case let measured? where measured.isSilent: "silent"
        case let measured?: String(format: "%.1f LUFS", measured.integrated)
        }
        let played = recording.lastPlayedAt.map { "last played \(Format.date($0))" } ?? "never played"
        let kind = "\(recording.type.rawValue) · \(Format.duration(recording.duration)) · \(plays)"
        let tags = recording.tags.map { "#" + Format.visible($0) + " · " }.joined()
        let facts = "\(tags)\(loudness) · made \(Format.date(recording.createdAt)) · \(played)"
        guard rows.count >= 4 else {
            frame.put(" \(kind) · \(facts)", row: last, column: 0, style: .dim)
            return
        }
        let title = "── \(Format.visible(recording.title)) "
        let used = frame.put(title, row: rows.lowerBound, column: 0, width: layout.columns - TerminalScreen.width(of: kind) - 6, style: .bold)
        let rule = max(layout.columns - used - TerminalScreen.width(of: kind) - 4, 0)
        frame.put(String(repeating: "─", count: rule) + " " + kind + " ──", row: rows.lowerBound, column: used, style: .dim)
        if let shown = state.view.waveform, shown.id == recording.id, let waveform = shown.waveform {
            // Its markers stand in it as "◆", each in its column.
            var line = Array(waveform.sparkline(width: max(layout.columns - 2, 1)))
            for marked in ProgressLine.columns(of: recording.markers, duration: recording.duration, width: line.count) {
                line[marked] = ProgressLine.markerMark
            }
            frame.put(" " + String(line), row: rows.lowerBound + 1, column: 0, style: .accent)
        } else {
            frame.put(" (no waveform stored yet: it is made at the first play)", row: rows.lowerBound + 1, column: 0, style: .dim)
        }
        // The notes, then the words said (its transcript), as much as the row holds.
        let notes = recording.notes.map { Format.visible($0) } ?? ""
        let transcript = state.view.waveform?.id == recording.id ? state.view.transcript.flatMap { $0.words.isEmpty ? nil : $0 } : nil
        let said = transcript.map { "said: \u{201C}" + Format.visible($0.text) + "\u{201D}" }
        switch (notes.isEmpty, said) {
        case (true, nil): frame.put(" No notes.", row: rows.lowerBound + 2, column: 0, style: .dim)
        case (true, let said?): frame.put(" " + said, row: rows.lowerBound + 2, column: 0)
        case (false, let said): frame.put(" " + notes + (said.map { " · " + $0 } ?? ""), row: rows.lowerBound + 2, column: 0)
        }
        frame.put(" " + facts, row: last, column: 0, style: .dim)
    }

    /// The look back's rows, over the last of the details: the part to keep once one is set (the
    /// clip's waveform with what would be cut as dots, and in words: ``LookBackState``'s lines,
    /// as `cravey record` prints them), else its keys that shape the clip; a clean-up's figures
    /// while it is compared.
    private mutating func drawLookBack() {
        var lines: [String]
        if case .cleanUp(_, let figures) = state.dialog.mode {
            lines = figures.components(separatedBy: "\n")
        } else if var lookBack = state.media.lookBack {
            lookBack.width = layout.columns - 2
            lines = lookBack.cutSet ? lookBack.lines(.cut) : HomeText.wrapped(KeyTable.labels(.shaping), width: layout.columns - 2)
        } else {
            return
        }
        for (row, line) in zip(layout.details.suffix(lines.count), lines.suffix(layout.details.count)) {
            frame.fill(row: row, style: .plain)
            frame.put(" " + line, row: row, column: 0, style: .accent)
        }
    }

    private mutating func drawPlayer() {
        let row = layout.player, media = state.media
        if let capture = media.capture {
            guard let level = capture.level else {
                frame.put(" ● starting to record…", row: row, column: 0, style: .warning)
                return
            }
            // After the meter, the markers made (m): how many, or the label being typed.
            let count = capture.markers.markers.count
            let said = capture.markers.prompt.map { " · " + $0 } ?? (count > 0 ? " · \(ProgressLine.markerMark) \(count)" : "")
            let (mark, text) = capture.meter.parts(level, width: layout.columns - 1 - TerminalScreen.width(of: said))
            var used = frame.put(" " + mark, row: row, column: 0, style: capture.meter.paused ? .bold : .warning)
            used += frame.put(" " + text, row: row, column: used)
            if !said.isEmpty { frame.put(said, row: row, column: used, style: .accent) }
        } else if let playing = media.playing {
            let line = playing.line, event = playing.event
            var column = frame.put(" \(line.mark(event)) \(line.position(event)) [", row: row, column: 0, style: .bold)
            let (plain, played) = line.bars(event)
            var bars = plain
            for marked in ProgressLine.columns(of: playing.markers.markers, duration: event.duration) { bars[marked] = ProgressLine.markerMark }
            let start = column
            // Without colour, the played part is bold and the rest dim.
            column += frame.put(String(bars[..<played]), row: row, column: column, style: state.view.colour ? .accent : .bold)
            column += frame.put(String(bars[played...]), row: row, column: column, style: .dim)
            bar = start..<column
            column += frame.put("] \(line.total) ", row: row, column: column, style: .bold)
            column += frame.put(String(format: "%.1fx ", event.speed), row: row, column: column, style: event.speed == 1 ? .dim : .accent)
            if let prompt = playing.markers.prompt {
                frame.put(" " + prompt, row: row, column: column, style: .accent)
            } else if let said = playing.spoken?.parts(at: event.position, width: layout.columns - column - 1) {
                // The sentence being said, in place of the title, its word said now in reverse.
                column += frame.put(" " + said.before, row: row, column: column)
                column += frame.put(said.word, row: row, column: column, style: .selected)
                frame.put(said.after, row: row, column: column)
            } else {
                frame.put(" " + Format.visible(playing.recording.title) + (playing.counted ? "" : " (not counted)"), row: row, column: column)
            }
        } else if let startingPlay = media.startingPlay {
            frame.put(" ▶ starting \"\(Format.visible(startingPlay.title))\"…", row: row, column: 0, style: .dim)
        } else if media.recorderBusy {
            frame.put(" ● saving…", row: row, column: 0, style: .dim)
        } else if let lookBack = media.lookBack?.recording {
            frame.put(" Saved \"\(Format.visible(lookBack.title))\" · \(Format.duration(lookBack.duration)) · \(ByteCount.text(lookBack.fileSize)): keep it, or change it first.",
                      row: row, column: 0, style: .bold)
        }
    }

    /// Draws the status line; returns where the cursor stands when a line is being typed.
    private mutating func drawStatus() -> (row: Int, column: Int)? {
        let row = layout.status
        switch state.dialog.mode {
        case .filtering:
            let used = frame.put("/" + state.list.request.filter, row: row, column: 0)
            let hint = "  Enter keeps · Esc clears"
            if used + TerminalScreen.width(of: hint) < layout.columns { frame.put(hint, row: row, column: used, style: .dim) }
            return (row, used)
        case .prompt(let prompt):
            let question = frame.put(prompt.question + " ", row: row, column: 0, style: .bold)
            // The end of what is typed stays in sight.
            let room = layout.columns - question - 1
            var shown = prompt.text
            while TerminalScreen.width(of: shown) > room, !shown.isEmpty { shown.removeFirst() }
            let used = frame.put(shown, row: row, column: question)
            return (row, question + used)
        case .confirm(let question, _, _):
            let used = frame.put(question + " ", row: row, column: 0, style: .warning)
            return (row, used)
        case .removeReminder(let reminder, _):
            let question = "Remove reminder \(reminder.number ?? 0) (\(reminder.time) \(reminder.days)) and its timer? [y/N] "
            return (row, frame.put(question, row: row, column: 0, style: .warning))
        case .cleanUp(let cleanUp, _):
            // Its keys (`cravey clean`'s line) over two rows when they do not fit one: the player
            // line is free while they are asked.
            let lines = cleanUp.listening ? [cleanUp.frame] : HomeText.wrapped(KeyTable.labels(.cleanUp), width: layout.columns)
            if lines.count > 1, layout.player < row {
                frame.fill(row: layout.player, style: .plain)
                frame.put(lines[0], row: layout.player, column: 0, style: .bold)
            }
            frame.put(lines.last ?? "", row: row, column: 0, style: .bold)
            return nil
        case .help, .browsing, .reminders:
            if let message = state.dialog.message {
                let style: TerminalScreen.Style = message.warning ? .warning : .bold
                let playerFree = state.media.idle && state.media.lookBack == nil
                if playerFree, TerminalScreen.width(of: message.text) > layout.columns, layout.player < row {
                    // A long message takes the player line too, cut where a word ends.
                    let (first, rest) = HomeText.split(message.text, width: layout.columns)
                    frame.put(first, row: layout.player, column: 0, style: style)
                    frame.put(rest, row: row, column: 0, style: style)
                } else {
                    frame.put(message.text, row: row, column: 0, style: style)
                }
            } else {
                // The reminders' own keys while they are shown.
                let context = HomeReminders.shown(state.dialog.mode) != nil ? .reminders : state.media.context
                frame.put(HomeText.fitting(KeyTable.labels(context), width: layout.columns), row: row, column: 0, style: .dim)
            }
            return nil
        }
    }

    /// The reminders (``HomeReminders``), where the help is drawn: the heading, the reminders
    /// (the selected one in reverse, kept in sight), then the notes.
    private mutating func drawReminders(_ view: RemindersView) {
        let rows = (layout.quickPlayHeading ?? layout.quickPlayRows[0])..<layout.player
        let (heading, items, notes) = HomeReminders.lines(view, width: layout.columns)
        let room = max(rows.count - 1 - notes.count, 1)
        let first = max(0, min(view.selected - room + 1, items.count - room))
        var lines: [(text: String, style: TerminalScreen.Style)] = [(heading, .bold)]
        for (index, item) in items.enumerated().dropFirst(first).prefix(room) {
            lines.append((item, index == view.selected ? .selected : .plain))
        }
        lines += notes.map { ($0, .dim) }
        for (row, line) in zip(rows, lines) {
            if line.style == .selected { frame.fill(row: row, style: .selected) }
            frame.put(" " + line.text, row: row, column: 0, width: layout.columns - 1, style: line.style)
        }
    }

    private mutating func drawHelp() {
        let rows = (layout.quickPlayHeading ?? layout.quickPlayRows[0])..<layout.player
        let reminders = HomeReminders.shown(state.dialog.mode) != nil
        for (row, line) in zip(rows, KeyTable.help(width: layout.columns - 1, lookingBack: state.media.lookBack != nil, reminders: reminders)) {
            frame.put(" " + line, row: row, column: 0, style: row == rows.lowerBound ? .bold : .plain)
        }
    }
}
