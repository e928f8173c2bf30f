import ArgumentParser
import CraveyCore

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete one recording: its entry, its file, its thumbnail and its waveform.",
        discussion: """
            Asks first (--yes when stdin is not a terminal). Either the entry, the file, the \
            thumbnail and the waveform are all gone, or nothing changed; a delete cut off by a \
            crash is finished (or undone, if its entry is still there) by `cravey doctor --repair`. \
            A clip changed by another cravey while the question waited (trimmed, cleaned, its \
            words edited) is not deleted: exit 75, ask again.
            """)

    @OptionGroup var target: RecordingArgument
    @Flag(help: "Do not ask for confirmation (needed when stdin is not a terminal).") var yes = false

    func run() throws {
        let (library, recording) = try target.open()
        // Asked, it is deleted only while it is still the clip the question showed; --yes asks nothing.
        let asked = yes ? nil : library.version(of: recording)
        guard try Terminal.confirm("Delete '\(Format.visible(recording.title))'? This cannot be undone.", yes: yes) else { return }
        try library.delete(recording.id, asked: asked)
        Terminal.diagnostic("Deleted \"\(Format.visible(recording.title))\".")
    }
}
