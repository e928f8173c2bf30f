import ArgumentParser
import CraveyCore
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show everything about one recording.",
        discussion: """
            Besides its words, dates, length, size and plays, it shows the clip's loudness \
            (`Loudness: -18.2 LUFS, true peak -1.3 dBTP`) and its waveform as a line of bars \
            (block characters of eight heights, U+2581 to U+2588, against the clip's loudest moment), and where its files are. The loudness \
            is kept in the database only: --json does not include it.
            """)

    @OptionGroup var target: RecordingArgument
    @Flag(help: "Print the recording as JSON.") var json = false

    /// Characters in the waveform's line: with its label, it fits an 80-column terminal.
    static let sparklineWidth = 60

    func run() throws {
        let (library, recording) = try target.open()
        if json { return try Terminal.printJSON(recording) }
        let file = library.url.appendingPathComponent(recording.filePath).path
        // (Each long value named first: in the array literal, they took the type checker seconds.)
        let markers: String = recording.markers.isEmpty
            ? "none" : "\(recording.markers.count) (`cravey markers \(Format.shortID(recording))` lists them)"
        let notMeasured: String = recording.type == .audio
            ? "not measured yet (`cravey doctor --repair` measures it, as does playing it once)"
            : "not measured (none if the clip has no sound; otherwise `cravey doctor --repair` measures it, as does playing it once)"
        let notMade: String = recording.type == .audio
            ? "not made yet (`cravey waveform` makes it, as does `cravey doctor --repair`)"
            : "not made (none if the clip has no sound; otherwise `cravey waveform` makes it, as does `cravey doctor --repair`)"
        let sparkline: String? = library.analysis.storedWaveform(of: recording).map { $0.sparkline(width: Self.sparklineWidth) }
        let thumbnail: [(String, String)] = recording.thumbnailPath.map {
            [("Thumbnail", Format.visible(library.url.appendingPathComponent($0).path))]
        } ?? []
        let rows: [(String, String)] = [
            ("ID", recording.id.description),
            ("Title", Format.visible(recording.title)),
            ("Type", recording.type.rawValue),
            ("Purpose", recording.purpose?.rawValue ?? "none"),
            ("Notes", Format.visible(recording.notes ?? "")),
            ("Created", Format.date(recording.createdAt)),
            ("Duration", Format.duration(recording.duration) + String(format: " (%.3f s)", recording.duration)),
            ("Size", ByteCount.text(recording.fileSize)),
            ("Plays", String(recording.playCount)),
            ("Last played", recording.lastPlayedAt.map(Format.date) ?? "never"),
            ("Markers", markers),
            ("Loudness", recording.loudness?.description ?? notMeasured),
            ("Waveform", sparkline ?? notMade),
            ("File", Format.visible(file)),
        ] + thumbnail
        try Terminal.output(rows.map { "\($0.0):".padding(toLength: 13, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n"))
    }
}
