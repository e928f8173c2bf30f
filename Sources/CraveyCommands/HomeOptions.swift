import ArgumentParser
import CraveyCore
import Foundation

/// `cravey home`'s command line and its manual: the full-screen app `cravey` alone opens on a
/// terminal (``CommandRoute``); `cravey-media`'s `Home` runs it.
package struct HomeOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "home",
        abstract: "Open the home screen: Quick Play, the library, playing and recording in one screen.",
        discussion: """
            `cravey` with no command opens it when stdin and stdout are a terminal (otherwise it \
            prints this help, as before); `cravey home` opens it always, and says so when there \
            is no terminal for it (exit 64). It fills the terminal (its alternate screen, as \
            less and vim do; any size from 40x10 up) with:

            Quick Play, the 3 most played clips: 1, 2 or 3 plays one at once, as `cravey \
            quickplay N`. The library, newest first: type, title, date, length, plays and \
            purpose of each clip. The selected clip: its waveform, notes, loudness, when it was \
            made and last played. A player line while a clip plays or records, and a status \
            line with the keys that work now.

            Keys (? shows them all): j/k or the arrows move, PgUp/PgDn a page, g/G the first and \
            last clip; the mouse wheel scrolls and a click selects. s cycles the order (recent, \
            most played, title). / filters as you type over titles, notes and purposes, and \
            over the words said in a clip with a transcript (`cravey transcribe`): each word \
            typed as the start of a word (once each has two letters), case and accents folded (cafe finds Café); a clip \
            matched by its words shows when the first is said and the words around it, and \
            Enter plays it from there. Enter keeps the filter, Escape clears it.

            Enter plays the selected clip on the player line, counted as `cravey play` counts \
            it; a video opens its window as `play` does, and the desktop's media keys (MPRIS) \
            act on it. While it plays: space pause, left/right 15 s, 0-9 jump to 0-90%, a click \
            on the bar goes there, [ and ] slow down and speed up by 10% (0.5x to 2x, the pitch \
            kept), Backspace back to 1x, m marks the moment (its label typed after, Enter \
            keeps it; a paste is text), , and . go to the previous and next marker, Escape \
            stops. The selected clip's waveform shows its markers as ◆.

            r records from the default microphone (R with a camera records video too): the \
            live meter and timer on the player line, space pauses, m marks the moment, Enter \
            or s stops and saves. \
            The look back then is `cravey record`'s (p play, t title, n notes, u purpose, d \
            discard, Enter keep; i and o set the start and end of the part to keep at the play \
            position, a proposes them, [ and ] hear its first and last 3 s, x cuts to it, c \
            cleans the noise, before and after compared), and the new clip is selected in the list.

            e edits the selected clip's title, notes and purpose, one line each (Enter keeps a \
            line, Escape gives up), with `cravey edit`'s limits; a refusal is shown on the status \
            line and nothing changes. d deletes the selected clip after asking (y deletes; \
            anything else keeps it). Deleting every clip stays a command of its own, `cravey \
            delete-all`.

            t shows the reminders (`cravey remind`) in place of the list: each with ● (its timer \
            runs) or ○ (not active), its number, time, days, when it fires next (or that it is \
            paused) and what it offers; why they are not active is said once below them. a adds \
            one: its time (18:30, 6:30pm), days (mon..fri, sat,sun, daily...) and clip (an id or \
            its start; empty: the first of Quick Play) typed on the status line, refused with \
            `remind add`'s words and nothing changed when they are none; e changes the selected \
            one the same way, filled in; p pauses it until resumed, or resumes it; d removes it \
            after asking. Their systemd units are written, started and removed as `cravey \
            remind` does it. t, Escape or q goes back to the list.

            A paste is text, wherever it lands (the screen asks the terminal for bracketed \
            paste): the filter takes it, a line being typed takes it unless it holds a line \
            break (a title, notes or purpose is one line: the line is refused and nothing \
            changes, as in `cravey record`'s look back), and anywhere else it is no key and no \
            answer. On a terminal without bracketed paste, an Enter in a line with more keys \
            read at once after it (or within 30 ms) is taken as a paste and refused the same \
            way, and a question is answered only by a key typed after it shows. Keys typed \
            ahead into the filter read the list once; a hang-up or Ctrl-C is taken before \
            keys still queued.

            Clips another cravey adds, edits, plays or deletes (an import in another terminal, \
            Quick Play from a desktop shortcut) show within a second: the screen watches the \
            library's database file (inotify) and reads again only what it shows. Where the \
            library syncs (`cravey sync`), what other machines write into the sync folder is \
            merged within seconds of its arrival (the screen watches the folder too, and merges \
            as `cravey sync` does: what is not sent yet is sent first), and the header shows the \
            last sync: "synced 14:02 · 3 changes merged", "up to date", what was refused or \
            waits, or "sync failed 14:05 · folder not there" (said once on the status line too); \
            a failure never stops the screen, and the next arrival tries again.

            q or Ctrl-C quits; a play under way is counted and a recording under way is saved \
            first, as the commands do, and so do SIGTERM and SIGHUP (a closed terminal). Ctrl-Z \
            suspends and `fg` comes back (a play or recording is paused meanwhile); Ctrl-L draws \
            the whole screen again. Every way out \
            puts the terminal back: its mode, the cursor, mouse reporting and bracketed paste off. The screen is \
            drawn through ncurses from the terminal's terminfo entry, redrawing only what \
            changed; NO_COLOR drops its colours; TERM=dumb (or no TERM) cannot show it: \
            `cravey` alone then prints this help, and `cravey home` exits 64.
            """)

    @OptionGroup package var options: LibraryOptions

    package init() {}

    /// Whether this process can show the home screen: stdin and stdout a terminal, and a TERM
    /// that is not `dumb`. (Whether its terminfo entry can move the cursor is known once ncurses
    /// reads it, in `cravey-media`.)
    package static var canShow: Bool {
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return Terminal.isTerminal(0) && Terminal.isTerminal(1) && !term.isEmpty && term != "dumb"
    }
}
