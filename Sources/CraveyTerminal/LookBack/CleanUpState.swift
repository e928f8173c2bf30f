import CraveyKit

/// A clean-up compared with its clip and kept or not, in the home screen's shape: one state
/// value (deciding or listening, which of the two is heard and where), the events that change it
/// (a key, a listening that ended), the effects it asks for (say a line, listen to one of the two
/// from a point, a command to the play, stop it, keep the cleaned clip or the clip as it was) and
/// its frame, the line each step shows. ``CleanListening`` is the loop around it. Its keys are the
/// key table's (`.cleanUp`, and `.cleanListening` while it is heard).
struct CleanUpState: Sendable, Equatable {
    /// Whether the two are being heard (else the person is deciding).
    private(set) var listening = false
    /// Which is heard: the cleaned clip (B) or the clip as it was (A).
    private(set) var cleaned = true
    /// Where the listening is: what a switch starts from.
    private(set) var position = 0.0
    /// Whether the play heard now stops to switch to the other.
    private(set) var switching = false

    /// What changes it.
    enum Event: Sendable {
        /// A key; nil: the input ended.
        case key(Key?)
        /// A listening ended where it stopped (nil: it failed, or did not start).
        case heard(stoppedAt: Double?)
    }

    /// What it asks for.
    enum Effect: Sendable, Equatable {
        /// Show the keys, and wait for one.
        case askKey
        /// Listen to the cleaned clip (or the clip as it was) from this point, never counted.
        case listen(cleaned: Bool, from: Double)
        case perform(PlayerCommand)
        /// Stop the play heard.
        case stop
        case keepCleaned
        case keepAsItWas
    }

    /// The next state after `event`, and the effects to carry out.
    mutating func apply(_ event: Event) -> [Effect] {
        switch event {
        case .key(nil):
            return listening ? [] : [.keepAsItWas]
        case .key(let key?):
            return listening ? hearing(key) : deciding(key)
        case .heard(let stopped):
            guard listening, switching else {
                (listening, switching) = (false, false)
                return [.askKey]
            }
            position = stopped ?? position
            cleaned.toggle()
            switching = false
            return [.listen(cleaned: cleaned, from: position)]
        }
    }

    /// A key while deciding: `p` listens (the cleaned clip first, from its start), `y` keeps the
    /// cleaned clip, `n` or Enter the clip as it was; any other key asks again.
    private mutating func deciding(_ key: Key) -> [Effect] {
        switch KeyTable.action(for: key, in: .cleanUp) {
        case .listen?:
            (listening, cleaned, position, switching) = (true, true, 0, false)
            return [.listen(cleaned: true, from: 0)]
        case .keepCleaned?: return [.keepCleaned]
        case .keepAsItWas?: return [.keepAsItWas]
        default: return [.askKey]
        }
    }

    /// A key while one of the two is heard: `a` switches to the other at the same moment, space
    /// pauses, any other key stops.
    private mutating func hearing(_ key: Key) -> [Effect] {
        switch KeyTable.action(for: key, in: .cleanListening) {
        case .switchCleaned?:
            switching = true
            return [.stop]
        case .player(let command)?: return [.perform(command)]
        default: return [.stop]
        }
    }

    /// The line shown: the keys while deciding, which is heard and the keys while listening.
    var frame: String {
        guard listening else { return KeyTable.line(.cleanUp) }
        return cleaned ? "B: after (cleaned); a switches to before, space pauses, any other key stops."
                       : "A: before; a switches to after (cleaned), space pauses, any other key stops."
    }
}
