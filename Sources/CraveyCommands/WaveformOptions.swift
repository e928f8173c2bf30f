import ArgumentParser
import CraveyCore
import Foundation

/// `cravey waveform`'s command line: its help, options and validation, and how it writes a
/// waveform; shared by `cravey` (``WaveformCommand``, which writes a stored waveform) and
/// `cravey-media`, which makes one that is not stored yet.
package struct WaveformOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "waveform",
        abstract: "Draw a clip's sound as a PNG, or print its peaks as audiowaveform's JSON.",
        discussion: """
            The picture is the whole clip from left to right, each column a line from its \
            highest to its lowest sample (dark grey on white; silence is a line across the \
            middle), --width by --height pixels (800x250, as audiowaveform draws). It goes to \
            --output, a new file refused as `export --output` is (something already there without \
            --force, anything not a regular file, any place inside the library), or to stdout \
            when that is not a terminal.

            --json prints the clip's peaks instead, in audiowaveform's JSON format (version 2: \
            version, channels, sample_rate, samples_per_pixel, bits, length, data), which \
            wavesurfer.js and peaks.js read as it is: the lowest and highest 16-bit sample of \
            every 10 ms, all channels together.

            Every clip with sound keeps its waveform beside its media (Recordings/<type>_<id>.peaks.dat, \
            audiowaveform's binary format). One saved before waveforms were kept has it made now, \
            from its media, and stored (`cravey doctor --repair` makes all of them). A clip \
            without sound (a silent video) exits 64, an unknown id or a missing file 66, audio \
            that does not decode 65.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String
    @Option(help: ArgumentHelp("Write to this new file (mode 0600) instead of stdout. Never a place inside the library.", valueName: "path"))
    package var output: String?
    @Option(help: ArgumentHelp("The picture's width, from 1 to 10000 pixels (default 800).", valueName: "pixels"))
    package var width: Int?
    @Option(help: ArgumentHelp("The picture's height, from 1 to 10000 pixels (default 250).", valueName: "pixels"))
    package var height: Int?
    @Flag(help: "With --output: replace a regular file already there (never a folder, a link or a device).")
    package var force = false
    @Flag(help: "Print the peaks as audiowaveform's JSON instead of drawing them.")
    package var json = false

    package init() {}

    package func validate() throws {
        for (name, value) in [("--width", width), ("--height", height)] {
            if let value, !(1...10_000).contains(value) {
                throw ValidationError("\(name) must be from 1 to 10000 pixels, not \(value).")
            }
        }
        if json && (width != nil || height != nil) {
            throw ValidationError("--width and --height size the picture; --json prints the peaks as they are kept.")
        }
        if force && output == nil {
            throw ValidationError("--force only goes with --output.")
        }
    }

    /// Writes `waveform`, the waveform of `recording`, as the options ask: a PNG, or the JSON,
    /// to `--output` or stdout. A PNG for a terminal is refused (exit 64): it would print bytes
    /// no terminal shows.
    package func write(_ waveform: Waveform, of recording: Recording, in library: RecordingLibrary) throws {
        let data = json ? waveform.audiowaveformJSON() + Data("\n".utf8)
            : waveform.pngImage(width: width ?? Waveform.defaultImageSize.width, height: height ?? Waveform.defaultImageSize.height)
        guard let output else {
            if !json, Terminal.isTerminal(1) {
                throw CraveyError(.invalidInput, "Refusing to write a PNG to the terminal. Name a file with --output, send stdout to a file or a program, or print the peaks with --json.")
            }
            return try Terminal.write(data)
        }
        try library.archive.writeOutside(to: URL(fileURLWithPath: output), doing: "write the waveform to", replacing: force) { try $0.write(data) }
        Terminal.diagnostic("Wrote the waveform of \"\(Format.visible(recording.title))\" to \(output).")
    }
}

/// `cravey waveform` in `cravey`: writes a stored waveform at once, without loading FFmpeg. A
/// clip whose waveform is not stored yet needs its media decoded: the command line is handed to
/// `cravey-media` (``CommandRoute/HandOff``), which makes it.
struct WaveformCommand: ParsableCommand {
    static let configuration = WaveformOptions.configuration

    @OptionGroup var command: WaveformOptions

    func run() throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        guard let waveform = library.analysis.storedWaveform(of: recording) else { throw CommandRoute.HandOff() }
        try command.write(waveform, of: recording, in: library)
    }
}
