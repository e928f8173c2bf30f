import ArgumentParser
import CraveyCore

/// `cravey pin ID [SLOT]`: keeps a recording in a Quick Play slot, whatever its play count.
struct Pin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pin a recording to a Quick Play slot (1 to 3), whatever its play count.",
        discussion: """
            Quick Play (`cravey quickplay`, the home screen's 1 to 3, the Quick Play launcher) \
            is the pinned recordings in their slots, the other slots filled with the most \
            played. Without SLOT a recording takes the first free slot (one already pinned \
            keeps its own); with every slot pinned, name the slot to replace, or unpin one \
            first (exit 64, nothing changed). A recording already in the slot is unpinned, and \
            stderr says which. With fewer recordings than slots, a pinned one moves up to the \
            first slot left empty before it. The pin is kept in the clip's own copy and its \
            backups. `cravey unpin ID` lets it go.
            """)

    @OptionGroup var target: RecordingArgument
    @Argument(help: "The slot, 1 to 3 (default: the first free one).") var slot: Int?
    @Flag(help: "Print the pinned recording as JSON.") var json = false

    func validate() throws {
        if let slot, !(1...RecordingLibrary.quickPlayCount).contains(slot) {
            throw ValidationError("SLOT must be from 1 to \(RecordingLibrary.quickPlayCount), not \(slot).")
        }
    }

    func run() throws {
        let (library, recording) = try target.open()
        let (pinned, displaced) = try library.pin(recording.id, slot: slot)
        if let displaced {
            Terminal.diagnostic("\"\(Format.visible(displaced.title))\" (\(Format.shortID(displaced))) is no longer pinned: slot \(pinned.pinnedSlot ?? 0) is this recording's now.")
        }
        if json { return try Terminal.printJSON(pinned) }
        Terminal.diagnostic("Pinned \"\(Format.visible(pinned.title))\" to Quick Play slot \(pinned.pinnedSlot ?? 0): `cravey quickplay \(pinned.pinnedSlot ?? 0)` plays it.")
    }
}
