import ArgumentParser
import CraveyCore

/// `cravey unpin ID`: lets a recording's Quick Play slot go.
struct Unpin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unpin a recording from Quick Play: it stays there only while it is among the most played.")

    @OptionGroup var target: RecordingArgument
    @Flag(help: "Print the recording as JSON.") var json = false

    func run() throws {
        let (library, recording) = try target.open()
        let unpinned = try library.unpin(recording.id)
        if json { return try Terminal.printJSON(unpinned) }
        Terminal.diagnostic(recording.pinnedSlot == nil
            ? "\"\(Format.visible(recording.title))\" was not pinned: nothing changed."
            : "Unpinned \"\(Format.visible(recording.title))\" from Quick Play slot \(recording.pinnedSlot ?? 0).")
    }
}
