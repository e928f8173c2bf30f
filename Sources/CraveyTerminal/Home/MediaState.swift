import CraveyKit

/// What the home screen shows of its plays and recordings (the player line), and the clip just
/// recorded while its look back is open. The plays and recordings themselves are the shell's
/// (``HomeScreen``); this is what they last said.
struct MediaState {
    /// A play on the player line.
    struct Play {
        let recording: Recording
        /// The line `cravey play` draws, drawn here in the screen's own terms.
        let line: ProgressLine
        var event: PlaybackEvent
        /// False for the look back's play, which is not counted.
        let counted: Bool
        /// Its markers, and the label being typed for one just made (`m`).
        var markers: MarkerKeys
        /// Its words as they are said, when it has a transcript.
        var spoken: SpokenLine? = nil
    }

    /// A recording on the player line.
    struct Capture {
        /// The line `cravey record` draws, drawn here in the screen's own terms.
        var meter: MeterLine
        var level: AudioLevel?
        /// The markers made while it records (`m`), the clip's once it is saved.
        var markers = MarkerKeys([])
    }

    var playing: Play?
    /// A play asked for and not started yet.
    var startingPlay: Recording?
    var capture: Capture?
    /// A recording asked for and not started yet, or one stopped and not saved yet.
    var recorderBusy = false
    /// The look back at the clip just recorded, while it is open: `cravey record`'s
    /// (``LookBackState``), drawn in the screen's frame (``HomeLookBack``).
    var lookBack: LookBackState?
    /// Where the look back's play back stops: the end of the first (or last) 3 s of the part
    /// kept that `[` (or `]`) hears.
    var hearingUntil: Double?
    /// The speed the next play starts at: the last one chosen, as mpv keeps it.
    var speed = 1.0

    /// Whether nothing plays or records, or is about to.
    var idle: Bool { playing == nil && startingPlay == nil && capture == nil && !recorderBusy }

    /// Whose keys the status line shows.
    var context: KeyBinding.Context {
        capture != nil ? .recording : lookBack != nil && playing == nil ? .lookBack : playing != nil ? .playing : .browsing
    }

    /// Whether `context`'s keys apply now.
    func applies(_ context: KeyBinding.Context) -> Bool {
        switch context {
        case .recording: capture != nil
        case .playing: playing != nil
        case .lookBack: lookBack != nil
        case .browsing: true
        default: false
        }
    }
}
