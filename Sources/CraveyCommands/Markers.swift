import ArgumentParser
import CraveyCore

/// `cravey markers ID [--add TIME [--label L]] [--remove N]`: lists a recording's markers, or
/// adds or removes one.
struct Markers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a recording's markers, or add (--add) or remove (--remove) one.",
        discussion: """
            A marker is a moment of a clip, to the millisecond, with an optional label: m while \
            recording (the meter) or playing (the player line, the home screen) adds one where \
            it is, and its label is typed after. Without options the markers are listed, one a \
            line: its number, its time (m:ss.fff) and its label. --add TIME adds one (a marker \
            already at that millisecond takes the --label given); --remove N removes the Nth. \
            A label is held to what a title is held to: at most 40 characters, no control \
            character (a tab, a line break, ESC); a label refused, a time past the clip's end or \
            a number no marker has exits 64, and nothing changes. A clip holds at most 500.

            Markers are part of the clip: its copy, its backups and --json (markers, an array of \
            {"at": seconds, "label": text or null}). `cravey trim` moves them with the sound and \
            drops those in the part cut; `cravey clean` keeps them. `cravey share --chapters` \
            writes them as the shared file's chapters in .m4a or .mp3 (only when asked: labels \
            are words).
            """)

    @OptionGroup var target: RecordingArgument
    @Option(help: ArgumentHelp("Add a marker here: seconds, or m:ss.fff.", valueName: "time")) var add: ClipTime?
    // Unconditional: a label is text, and "-2 dB" is a label, not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("The added marker's label (with --add); hidden from ps as a title is.", valueName: "text"))
    var label: String?
    @Option(help: ArgumentHelp("Remove the Nth marker, as the list numbers them.", valueName: "n")) var remove: Int?
    @Flag(help: "Print the markers as JSON.") var json = false

    func validate() throws {
        if label != nil, add == nil { throw ValidationError("--label names the marker --add adds: give --add TIME too.") }
        if add != nil, remove != nil { throw ValidationError("Give --add or --remove, not both.") }
    }

    func run() throws {
        let (library, recording) = try target.open()
        var changed = recording
        if let add { changed = try library.markers.add(to: recording.id, at: add.seconds, label: label) }
        if let remove { changed = try library.markers.remove(remove, of: recording.id) }
        if json { return try Terminal.printJSON(changed.markers) }
        if add != nil || remove != nil {
            let count = changed.markers.count
            Terminal.diagnostic("\"\(Format.visible(changed.title))\" has \(count) marker\(count == 1 ? "" : "s") now.")
        }
        guard !changed.markers.isEmpty else {
            return Terminal.diagnostic("\"\(Format.visible(changed.title))\" has no markers (m while recording or playing adds one, or `cravey markers ID --add TIME`).")
        }
        let lines = changed.markers.enumerated().map { index, marker in
            "\(index + 1)\t\(ClipTime.text(marker.seconds))" + (marker.label.map { "\t" + Format.visible($0) } ?? "")
        }
        try Terminal.output(lines.joined(separator: "\n"))
    }
}
