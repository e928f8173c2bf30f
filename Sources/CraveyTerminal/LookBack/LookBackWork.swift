import CraveyKit

/// What the look back's effects change, through the library's door, for both its shells:
/// `cravey record`'s (``Preview``) and the home screen's (``HomeWork``). Each change is made only
/// while the clip is still as the question showed it (`asked`). The shells ask the questions,
/// tell ``LookBackState`` what the changes end with, and say the failures.
struct LookBackWork: Sendable {
    let library: RecordingLibrary

    /// `a` (the home screen's `x` too): the part to keep proposed from the clip's stored
    /// waveform, as `trim --auto` proposes it; nil when no sound stands above its noise.
    func propose(_ recording: Recording) async throws -> TrimProposal? {
        try await library.shaping.proposedTrim(of: recording)
    }

    /// `x` answered yes: the clip cut to `start`-`end` in one durable replacement that keeps its
    /// id, words and plays.
    func cut(_ asked: ClipVersion, from start: Double, to end: Double) async throws -> Recording {
        try await library.shaping.trim(asked.recording, from: start, to: end, asked: asked)
    }

    /// `c`: the clip's noise cleaned beside it, to be compared and kept or not (``CleanUpState``).
    func clean(_ asked: ClipVersion) async throws -> NoiseCleanup {
        try await library.shaping.cleanNoise(of: asked.recording, asked: asked)
    }

    /// A clean-up compared and kept: the clip replaced by it in one durable step.
    func keep(_ cleanup: NoiseCleanup) async throws -> Recording {
        try await library.shaping.keep(cleanup)
    }

    /// `t`, `n` or `u` answered: the words typed (0 the title, 1 the notes, 2 the purpose) set as
    /// `cravey edit` sets them, in one change; an empty one is none (the title then the automatic
    /// one). Off the cooperative pool: SQLite and the writers' lock may wait.
    func edit(_ asked: ClipVersion, _ answers: [(field: Int, text: String)]) async throws -> Recording {
        try await onDedicatedThread(named: "cravey.edit") { [library] in
            try library.edit(asked.recording.id, asked: asked) { metadata in
                for (field, text) in answers {
                    switch field {
                    case 0: metadata.title = text.isEmpty ? nil : text
                    case 1: metadata.notes = text.isEmpty ? nil : text
                    default: metadata.purpose = try RecordingMetadata.purpose(named: text)
                    }
                }
            }
        }
    }

    /// `d` answered yes: the clip deleted (its file, thumbnail and row).
    func discard(_ asked: ClipVersion) async throws -> Recording {
        try await onDedicatedThread(named: "cravey.delete") { [library] in try library.delete(asked.recording.id, asked: asked) }
    }
}
