import Foundation

extension RecordingLibrary {
    /// Checks that the library's rows and files agree, and that every clip's media decodes to
    /// its end as long as it says, changing nothing; on a thread of its own (reading files blocks).
    public func examine() async throws -> RepairReport {
        try await onDedicatedThread(named: "cravey.doctor") { try self.doctor.examine(repair: false, deleteUnplayable: false) }
    }

    /// Checks that the library's rows and files agree and repairs what does not: registers
    /// playable files that have no row (as their own copy says, or as "Recovered <date>"),
    /// removes rows whose file is gone, fixes sizes, removes orphan thumbnails, waveforms and
    /// other parts of clips that are gone, finishes or undoes interrupted deletions and imports,
    /// and measures clips whose loudness or waveform is missing. `deletingUnplayable` also
    /// deletes orphan files that cannot be played. Returns what it found and did.
    public func repair(deletingUnplayable: Bool = false) async throws -> RepairReport {
        try await onDedicatedThread(named: "cravey.doctor") {
            try self.doctor.examine(repair: true, deleteUnplayable: deletingUnplayable)
        }
    }
}
