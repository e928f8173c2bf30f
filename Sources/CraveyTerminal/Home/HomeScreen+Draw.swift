import CraveyCommands
import CraveyKit
import Foundation

/// What the home screen draws where (``HomeLayout``): each frame is drawn whole into ncurses'
/// picture of the screen, and ncurses writes to the terminal only what differs from the last.
extension HomeScreen {
    /// The keys of each state, for the status line; `?` shows them all (``help``).
    static let browsingKeys = ["Enter play", "1-3 Quick Play", "r record", "e edit", "d delete", "/ filter", "s sort", "x cut silence", "q quit"]
    static let playingKeys = ["space pause", "←/→ 15 s", "0-9 jump", "[ ] speed", "⌫ 1x", "Esc stop", "q quit"]
    static let recordingKeys = ["space pause", "Enter or s stop and save", "q save and quit"]

    /// Every key, for `?`.
    static let help = [
        "Keys of the home screen (any key closes this)",
        "",
        "j k ↑ ↓   move      PgUp PgDn   a page      g G   the first, the last",
        "s         order: recent, most played, title",
        "/         filter as you type; Enter keeps it, Esc clears it",
        "Enter     play the selected clip      1 2 3   play a Quick Play clip",
        "mouse     the wheel scrolls, a click selects (plays in Quick Play)",
        "Playing:  space pause · ←/→ 15 s · 0-9 jump · a click on the bar",
        "          [ ] 10% slower, faster (pitch kept) · ⌫ 1x · Esc stop",
        "r R       record sound (R: and video, with a camera); space pause,",
        "          Enter or s stop; then p play · t title · n notes",
        "          · u purpose · d discard · Enter keep",
        "e         edit title, notes, purpose      d   delete (asks first)",
        "x         cut the silence before the first sound and after the last",
        "          (as trim --auto; asks first, the cut parts cannot be recovered)",
        "q Ctrl-C  quit (a play counted, a recording saved)  Ctrl-Z  suspend",
        "Ctrl-L    draw the whole screen again",
    ]

    func draw() {
        layout = HomeLayout(rows: screen.rows, columns: screen.columns)
        screen.erase()
        guard layout.fits else {
            screen.put("cravey needs at least \(HomeLayout.smallest.columns)x\(HomeLayout.smallest.rows)", row: 0, column: 0)
            screen.put("(now \(layout.columns)x\(layout.rows))", row: 1, column: 0)
            return screen.show()
        }
        drawHeader()
        if case .help = mode {
            drawHelp()
        } else {
            drawQuickPlay()
            drawLibrary()
            drawDetails()
        }
        drawPlayer()
        screen.show(cursor: drawStatus())
    }

    private func drawHeader() {
        screen.put(" cravey", row: layout.header, column: 0, style: .bold)
        let clips = "\(browser.page.total) clip\(browser.page.total == 1 ? "" : "s") · ? help "
        // "… of": the filter's matches are being counted.
        let right = browser.request.filter.isEmpty ? clips : "\(browser.page.counted ? String(browser.page.matching) : "…") of \(clips)"
        screen.put(right, row: layout.header, column: max(layout.columns - TerminalScreen.width(of: right), 8))
    }

    private func drawQuickPlay() {
        let clips = browser.page.quickPlay
        guard let heading = layout.quickPlayHeading else {
            // One row: "Quick Play  1 Breathe · 2 Walk · 3 Ten minutes".
            let used = screen.put(" Quick Play ", row: layout.quickPlayRows[0], column: 0, style: .bold)
            let text = clips.isEmpty ? "empty: r records your first clip"
                : clips.enumerated().map { "\($0.offset + 1) \(Format.visible($0.element.title))" }.joined(separator: " · ")
            screen.put(text, row: layout.quickPlayRows[0], column: used, style: clips.isEmpty ? .dim : .plain)
            return
        }
        screen.put(" Quick Play", row: heading, column: 0, style: .bold)
        guard !clips.isEmpty else {
            screen.put("   Nothing here yet: press r to record your first clip, then play it in a hard moment.",
                       row: layout.quickPlayRows[0], column: 0, style: .dim)
            screen.put("   The clips you play most show here; 1, 2 and 3 play them at once.", row: layout.quickPlayRows[1],
                       column: 0, style: .dim)
            return
        }
        let width = layout.columns - 24
        for (index, recording) in clips.enumerated() {
            let row = layout.quickPlayRows[index]
            screen.put("  \(index + 1)", row: row, column: 0, style: .accent)
            screen.put("\(HomeText.icon(recording)) \(Format.visible(recording.title))", row: row, column: 4, width: width - 1)
            let plays = "\(recording.playCount) play\(recording.playCount == 1 ? "" : "s")"
            screen.put(HomeText.right(Format.duration(recording.duration), 8) + HomeText.right(plays, 11), row: row, column: layout.columns - 20)
        }
    }

    private func drawLibrary() {
        let order = switch browser.request.sort {
        case .recent: "recent"
        case .mostPlayed: "most played"
        case .title: "title"
        }
        var heading = " Library · \(order)"
        if !browser.request.filter.isEmpty { heading += " · filter: \(Format.visible(browser.request.filter))" }
        let columns = layout.listColumns
        let labelled = screen.put(heading, row: layout.libraryHeading, column: 0, width: columns.title + 2, style: .bold)
        var column = max(columns.title + 3, labelled + 1)
        if let width = columns.date {
            screen.put("made", row: layout.libraryHeading, column: column, style: .dim)
            column += width
        }
        screen.put(HomeText.right("length", columns.length - 1) + HomeText.right("plays", columns.plays), row: layout.libraryHeading,
                   column: column, style: .dim)
        column += columns.length + columns.plays
        if columns.purpose != nil { screen.put(" purpose", row: layout.libraryHeading, column: column, style: .dim) }
        guard !browser.page.rows.isEmpty else {
            let empty = browser.page.total == 0
                ? "   The library is empty. Press r to record a clip, or run `cravey import FILE`."
                : "   No clip holds \"\(Format.visible(browser.request.filter))\" in its title, notes or purpose. Escape clears the filter."
            if let row = layout.list.first { screen.put(empty, row: row, column: 0, style: .dim) }
            return
        }
        for (offset, row) in layout.list.enumerated() {
            let position = browser.request.first + offset
            let index = position - browser.page.first
            guard browser.page.rows.indices.contains(index) else { break }
            let recording = browser.page.rows[index]
            let style: TerminalScreen.Style = position == browser.selected ? .selected : .plain
            if position == browser.selected { screen.fill(row: row, style: style) }
            var column = 1
            screen.put("\(HomeText.icon(recording)) \(Format.visible(recording.title))", row: row, column: column, width: columns.title + 1, style: style)
            column += columns.title + 2
            if let width = columns.date {
                let date = columns.shortDate ? HomeText.shortDate(recording.createdAt) : Format.date(recording.createdAt)
                screen.put(date, row: row, column: column, width: width, style: style)
                column += width
            }
            screen.put(HomeText.right(Format.duration(recording.duration), columns.length - 1), row: row, column: column, style: style)
            column += columns.length
            screen.put(HomeText.right(String(recording.playCount), columns.plays - 1), row: row, column: column, style: style)
            column += columns.plays
            if let width = columns.purpose {
                screen.put(" " + (recording.purpose?.rawValue ?? ""), row: row, column: column, width: width, style: style)
            }
        }
    }

    private func drawDetails() {
        let rows = layout.details
        guard let recording = lookBack ?? selectedRecording, let last = rows.last else { return }
        let plays = "\(recording.playCount) play\(recording.playCount == 1 ? "" : "s")"
        let loudness = switch recording.loudness {
        case nil: "loudness not measured"
        case let measured? where measured.isSilent: "silent"
        case let measured?: String(format: "%.1f LUFS", measured.integrated)
        }
        let played = recording.lastPlayedAt.map { "last played \(Format.date($0))" } ?? "never played"
        let kind = "\(recording.type.rawValue) · \(Format.duration(recording.duration)) · \(plays)"
        let facts = "\(loudness) · made \(Format.date(recording.createdAt)) · \(played)"
        guard rows.count >= 4 else {
            screen.put(" \(kind) · \(facts)", row: last, column: 0, style: .dim)
            return
        }
        let title = "── \(Format.visible(recording.title)) "
        let used = screen.put(title, row: rows.lowerBound, column: 0, width: layout.columns - TerminalScreen.width(of: kind) - 6, style: .bold)
        let rule = max(layout.columns - used - TerminalScreen.width(of: kind) - 4, 0)
        screen.put(String(repeating: "─", count: rule) + " " + kind + " ──", row: rows.lowerBound, column: used, style: .dim)
        if let waveform = waveform(of: recording) {
            screen.put(" " + waveform.sparkline(width: max(layout.columns - 2, 1)), row: rows.lowerBound + 1, column: 0, style: .accent)
        } else {
            screen.put(" (no waveform stored yet: it is made at the first play)", row: rows.lowerBound + 1, column: 0, style: .dim)
        }
        let notes = recording.notes.map { Format.visible($0) } ?? ""
        screen.put(notes.isEmpty ? " No notes." : " " + notes, row: rows.lowerBound + 2, column: 0, style: notes.isEmpty ? .dim : .plain)
        screen.put(" " + facts, row: last, column: 0, style: .dim)
    }

    /// The stored waveform of `recording`, read once for the clip selected.
    private func waveform(of recording: Recording) -> Waveform? {
        if let shownWaveform, shownWaveform.id == recording.id { return shownWaveform.waveform }
        let waveform = library.storedWaveform(of: recording)
        shownWaveform = (recording.id, waveform)
        return waveform
    }

    private func drawPlayer() {
        let row = layout.player
        playerBar = nil
        if let capture {
            guard let level = capture.level else {
                screen.put(" ● starting to record…", row: row, column: 0, style: .warning)
                return
            }
            let (mark, text) = capture.meter.parts(level, width: layout.columns - 1)
            let used = screen.put(" " + mark, row: row, column: 0, style: capture.recorder.isPaused ? .bold : .warning)
            screen.put(" " + text, row: row, column: used)
        } else if let playing {
            let line = playing.line, event = playing.event
            var column = screen.put(" \(line.mark(event)) \(line.position(event)) [", row: row, column: 0, style: .bold)
            let (bars, played) = line.bars(event)
            let start = column
            if screen.colour {
                column += screen.put(String(bars[..<played]), row: row, column: column, style: .accent)
                column += screen.put(String(bars[played...]), row: row, column: column, style: .dim)
            } else {
                // Without colour, the played part is bold and the rest dim.
                column += screen.put(String(bars[..<played]), row: row, column: column, style: .bold)
                column += screen.put(String(bars[played...]), row: row, column: column, style: .dim)
            }
            playerBar = start..<column
            column += screen.put("] \(line.total) ", row: row, column: column, style: .bold)
            column += screen.put(String(format: "%.1fx ", playing.speed), row: row, column: column, style: playing.speed == 1 ? .dim : .accent)
            screen.put(" " + Format.visible(playing.recording.title) + (playing.counted ? "" : " (not counted)"), row: row, column: column)
        } else if let startingPlay {
            screen.put(" ▶ starting \"\(Format.visible(startingPlay.title))\"…", row: row, column: 0, style: .dim)
        } else if recorderBusy {
            screen.put(" ● saving…", row: row, column: 0, style: .dim)
        } else if let lookBack {
            screen.put(" Saved \"\(Format.visible(lookBack.title))\" · \(Format.duration(lookBack.duration)) · \(ByteCount.text(lookBack.fileSize)): keep it, or change it first.",
                       row: row, column: 0, style: .bold)
        }
    }

    /// Draws the status line; returns where the cursor stands when a line is being typed.
    private func drawStatus() -> (row: Int, column: Int)? {
        let row = layout.status
        switch mode {
        case .filtering:
            let used = screen.put("/" + browser.request.filter, row: row, column: 0)
            let hint = "  Enter keeps · Esc clears"
            if used + TerminalScreen.width(of: hint) < layout.columns { screen.put(hint, row: row, column: used, style: .dim) }
            return (row, used)
        case .prompt(let prompt):
            let question = screen.put(prompt.question + " ", row: row, column: 0, style: .bold)
            // The end of what is typed stays in sight.
            let room = layout.columns - question - 1
            var shown = prompt.text
            while TerminalScreen.width(of: shown) > room, !shown.isEmpty { shown.removeFirst() }
            let used = screen.put(shown, row: row, column: question)
            return (row, question + used)
        case .confirm(let question, _, _):
            let used = screen.put(question + " ", row: row, column: 0, style: .warning)
            return (row, used)
        case .help, .browsing:
            if let message {
                let style: TerminalScreen.Style = message.warning ? .warning : .bold
                let playerFree = capture == nil && playing == nil && startingPlay == nil && !recorderBusy && lookBack == nil
                if playerFree, TerminalScreen.width(of: message.text) > layout.columns, layout.player < row {
                    // A long message takes the player line too, cut where a word ends.
                    let (first, rest) = HomeText.split(message.text, width: layout.columns)
                    screen.put(first, row: layout.player, column: 0, style: style)
                    screen.put(rest, row: row, column: 0, style: style)
                } else {
                    screen.put(message.text, row: row, column: 0, style: style)
                }
            } else {
                let keys = capture != nil ? Self.recordingKeys
                    : lookBack != nil && playing == nil ? Preview.keys.components(separatedBy: " · ")
                    : playing != nil ? Self.playingKeys : Self.browsingKeys
                screen.put(HomeText.fitting(keys, width: layout.columns), row: row, column: 0, style: .dim)
            }
            return nil
        }
    }

    private func drawHelp() {
        let rows = (layout.quickPlayHeading ?? layout.quickPlayRows[0])..<layout.player
        for (row, line) in zip(rows, Self.help) {
            screen.put(" " + line, row: row, column: 0, style: row == rows.lowerBound ? .bold : .plain)
        }
    }
}
