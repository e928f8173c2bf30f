/// A key a person presses in a player, wherever it was read: the terminal or a video's window.
package enum PlayerKey: Sendable, Equatable {
    /// A printable character as typed (`q`, `f`, `5`, a space).
    case character(Character)
    case left, right, home, end, escape, backspace
    /// A click of the left mouse button at this column and row of the terminal (1-based), as
    /// xterm's SGR mouse reporting gives it.
    case click(column: Int, row: Int)
}

/// What a player's keys ask of a playback: the terminal's and the window's controls, in one table.
package enum PlayerCommand: Sendable, Equatable {
    /// Pauses when playing, resumes when paused.
    case togglePause
    /// Skips by this many seconds, back (negative) or forward, clamped to the clip.
    case skip(Double)
    /// Goes to this fraction of the clip: 0 is its start, 1 its end.
    case seek(fraction: Double)
    /// Turns a video's window full screen, or back.
    case toggleFullScreen
    /// Stops (the play counts).
    case stop
    /// Plays this much faster (positive) or slower, within 0.5x to 2x, the pitch kept.
    case changeSpeed(by: Double)
    /// Plays at the clip's own speed again.
    case resetSpeed

    /// The command `key` gives, if any: space pauses and resumes, the arrows skip 15 s back and
    /// forward, a digit N goes to N × 10 % of the clip, Home to its start and End to its end, `f`
    /// turns full screen on and off, `q` and Escape stop; `[` and `]` slow down and speed up by
    /// 10% and Backspace goes back to 1x, as in mpv.
    package init?(_ key: PlayerKey) {
        switch key {
        case .left: self = .skip(-15)
        case .right: self = .skip(15)
        case .home: self = .seek(fraction: 0)
        case .end: self = .seek(fraction: 1)
        case .escape: self = .stop
        case .backspace: self = .resetSpeed
        case .character("["): self = .changeSpeed(by: -0.1)
        case .character("]"): self = .changeSpeed(by: 0.1)
        case .click: return nil  // where a click seeks depends on what was drawn there
        case .character(" "): self = .togglePause
        case .character("q"), .character("Q"): self = .stop
        case .character("f"), .character("F"): self = .toggleFullScreen
        case .character(let character):
            guard character.isASCII, let digit = character.wholeNumberValue else { return nil }
            self = .seek(fraction: Double(digit) / 10)
        }
    }
}
