import Foundation
import SystemPackage

extension SyncInbox {
    /// Imports each whole file of the inbox whose clip is not here yet, as `cravey import` does
    /// (checked whole before anything is stored, converted to the library's format), as the clip
    /// its bytes name (``SyncInbox``), dated when the file was last changed (Syncthing keeps
    /// that time, so every machine dates it alike) and titled by its name; once the clips are
    /// sent, takes each file imported, or whose clip is here already, out of the inbox. A file
    /// that is not media cravey imports is left and noted with why. Blocking: run it off the
    /// cooperative pool.
    package func take(now: Date = Date()) throws -> Taking {
        let scan = try scan(now: now)
        var taking = Taking()
        taking.arriving = scan.arriving.count
        guard let inbox = scan.folder else { return taking }
        var refused = scan.refused, taken: [Candidate] = []
        for candidate in scan.candidates {
            guard let (descriptor, id) = try open(candidate, in: inbox) else { continue }  // changed since: the next sync
            defer { try? descriptor.close() }
            if try isKnown(id) {
                taken.append(candidate)
                continue
            }
            var metadata = try RecordingMetadata()
            metadata.title = RecordingMetadata.title(forFileAt: inbox.appendingPathComponent(candidate.name))
            // Read through the descriptor opened (never a link, the very file checked).
            let source = URL(fileURLWithPath: "/proc/self/fd/\(descriptor.rawValue)")
            do {
                _ = try Importer.importFile(source, into: store, id: id, metadata: metadata, createdAt: candidate.modified)
                taking.imported.append(id)
                taken.append(candidate)
            } catch let error as CraveyError where [.undecodableMedia, .invalidInput].contains(error.kind) {
                let reason = error.message.replacingOccurrences(of: source.path, with: candidate.name)
                refused.append(Refusal(name: candidate.name, size: candidate.size, modified: candidate.modified, reason: reason))
            }
        }
        try finish(refused: refused, taken: taken, in: inbox)
        (taking.taken, taking.refused) = (taken.count, refused.count)
        return taking
    }
}
