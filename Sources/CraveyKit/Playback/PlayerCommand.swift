/// What a player's keys ask of a playback, from the terminal or a video's window (which key asks
/// what is CraveyTerminal's `KeyTable`).
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

}
