import ArgumentParser
import CraveyCore

/// `cravey tag ID [+word] [-word]...`: files a recording under words, or shows its tags.
struct Tag: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add (+word) or remove (-word) a recording's tags; without changes, print them.",
        discussion: """
            A tag is one word of at most 30 characters (join words with - or _), kept in lower \
            case; a clip has at most 20. A space, '#', ',', a control or an invisible formatting \
            character is refused (exit 64), and nothing changes. A word without + or - is added. \
            `cravey list --tag calm`, `cravey quickplay --tag calm` and `cravey export --tag calm` \
            show the clips tagged calm; on the home screen, #calm in the filter narrows to them. \
            Tags go into the clip's copy, its backups and --json (tags, an array).
            """)

    @OptionGroup var target: RecordingArgument
    // Unconditional: "-work" is a tag to remove, not an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("+word adds a tag, -word removes one.", valueName: "change"),
              completion: Completion.tagChanges)
    var changes: [String] = []
    @Flag(help: "Print the recording as JSON.") var json = false

    func run() throws {
        let (library, recording) = try target.open()
        var adding: [String] = [], removing: [String] = []
        for change in changes {
            if change.hasPrefix("-") { removing.append(String(change.dropFirst())) } else {
                adding.append(change.hasPrefix("+") ? String(change.dropFirst()) : change)
            }
        }
        let tagged = changes.isEmpty ? recording : try library.tag(recording.id, adding: adding, removing: removing)
        if json { return try Terminal.printJSON(tagged) }
        let tags = tagged.tags.isEmpty ? "no tags" : tagged.tags.map { "#" + Format.visible($0) }.joined(separator: " ")
        if changes.isEmpty { return try Terminal.output(tags) }
        Terminal.diagnostic("\"\(Format.visible(tagged.title))\": \(tags).")
    }
}
