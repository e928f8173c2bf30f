import ArgumentParser
import CraveyCore
import Foundation

/// `cravey record`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Record` command runs it). See ``Cravey``.
package struct RecordOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a clip from the microphone (with --video, a camera too).",
        discussion: """
            Records AAC audio (48 kHz mono, 96 kb/s) into Recordings/ until --seconds have been \
            captured or you press Ctrl-C; SIGINT, SIGTERM and SIGHUP (the terminal window closed) \
            all save the clip with its title. Prints the new recording's id. On a terminal stderr \
            shows a live line, redrawn at least 10 times a second: the timer (to the tenth of a \
            second), the sound of the last seconds as a scrolling waveform (a bar a capture \
            block, its peak from -60 to 0 dBFS, as wide as the terminal allows) and the level \
            (without colour when NO_COLOR is set; nothing when stderr is not a terminal). A \
            capture block is 40 ms on PulseAudio and 42.7 ms on PipeWire (two of its 1024-frame \
            quanta at 48 kHz), so levels arrive 23 to 25 times a second. If the \
            input stays below -60 dBFS for the first 2 seconds, it warns once that the \
            microphone may be muted or the wrong source.

            The clip is written as it is recorded, a fragmented MP4 in half-second fragments, so \
            a crash or `kill -9` loses at most the last half second or so; `cravey doctor \
            --repair` registers what was left. A clean stop rewrites it with its index up front \
            and saves it durably before its id is printed.

            --toggle is one command for a desktop shortcut: it starts a recording when none is \
            running in this library, and stops and saves the one that is (it sends that process \
            Ctrl-C's SIGINT and returns once the clip is saved). It needs no terminal: a desktop \
            notification says "Recording" and "Saved a clip (0:12)", never a title, and the clip \
            is kept at once, without a look back. Two toggles at once never start two \
            recordings; a stop that comes while the recording is starting stops it once it has \
            started. The library's record.toggle file (mode 0600) holds the recording's lock.

            m on a terminal marks the moment recording (a marker of the clip once it is saved; \
            its label is typed after it, Enter keeps it, Escape leaves it without one; the meter \
            counts them): `cravey markers` lists them. A recording killed before it is saved \
            keeps its sound, not its markers.

            Space on a terminal, or SIGUSR1 (`kill -USR1 PID`, for scripts and desktop \
            shortcuts), pauses the recording, and again resumes it: what is captured meanwhile is left out of the clip (sound and \
            video alike, in step), the joint makes no click, and --seconds counts only what was \
            recorded. The meter says paused and its clock stops; stderr says "Paused" and \
            "Resumed".

            With --video it records the camera too: H.264 (libx264 veryfast, zerolatency, \
            yuv420p) and AAC in an MP4, at --size and --fps (1280x720 at 30 by default), with a \
            thumbnail made at save; the meter also shows the frame rate the camera achieves, and \
            a line at the end gives the frames written, dropped and repeated. The camera is asked \
            for the mode of its own list nearest that size and rate (the nearest size, then the \
            nearest rate; MJPEG where raw YUYV cannot reach the rate at that size), and its \
            pictures are scaled only when the mode differs. The video is held to a constant rate \
            against the audio (pictures dropped or repeated, never drifting) and ends with it. \
            `--camera test` is a synthetic camera (FFmpeg's testsrc2: a moving pattern with a \
            running clock, delivered in real time) that takes the same path as a real one, for \
            machines without a camera. A camera that does not exist or cannot be opened exits 69 \
            at once, naming it.

            When it stops, with stdin and stderr on a terminal, the clip is already saved and a \
            look back shows its title, duration and waveform: p plays it (a preview, not counted; \
            space pauses, any other key stops), t, n and u set its title, notes and purpose \
            (refused as `cravey edit` refuses them, nothing changed then), d discards it (after \
            "Discard recording? This cannot be undone. [y/N]"), Enter or Escape keeps it and prints its id. \
            Ctrl-C, SIGTERM or a closed terminal there keeps it too. --no-preview, or stdin not a \
            terminal (a script, a pipe), keeps it at once.
            """)

    @OptionGroup package var options: LibraryOptions

    @Option(help: "Stop after this many seconds of audio, from 0.1 to 86400 (24 hours).")
    package var seconds: Double?

    @OptionGroup package var metadata: MetadataOptions

    @Option(help: ArgumentHelp("The PulseAudio source to record from (see `cravey devices`).", valueName: "source"),
            completion: Completion.devices("source"))
    package var device: String?

    @Flag(help: "Record video from a camera as well as sound.")
    package var video = false

    @Option(help: ArgumentHelp("With --video: the camera's device path (default: /dev/video0) or its name as `cravey devices` shows it, or `test` for the synthetic camera.",
                               valueName: "device"), completion: Completion.devices("camera"))
    package var camera: String?

    @Option(help: ArgumentHelp("With --video: the picture size, WIDTHxHEIGHT in even numbers from 32 to 4096.",
                               valueName: "WxH"))
    package var size: String?

    @Option(help: ArgumentHelp("With --video: frames per second, from 1 to 120.", valueName: "N"))
    package var fps: Int?

    @Flag(help: "Keep the clip as soon as it stops, without the look back a terminal gets (its duration and waveform; p plays it, t, n and u set its title, notes and purpose, d discards it, Enter or Escape keeps it).")
    package var noPreview = false

    @Flag(help: "Print the whole recording as JSON instead of its id.")
    package var json = false

    @Flag(help: "Start a recording when none is running, or stop and save the one that is (for a desktop shortcut: no terminal needed, a notification says it started and that it was saved).")
    package var toggle = false

    package init() {}

    /// The camera to record from: `--camera`, else the first one.
    package var cameraDevice: String { camera ?? "/dev/video0" }

    /// The picture size `--size` asks for (1280x720 when not given); validated by ``validate()``.
    package var pictureSize: (width: Int, height: Int) {
        size.flatMap(Self.parseSize) ?? (1280, 720)
    }

    /// The frame rate `--fps` asks for (30 when not given).
    package var frameRate: Int { fps ?? 30 }

    /// Run by `cravey` only for `record --toggle` (``CommandRoute``): a recording another toggle
    /// runs in the library is stopped here, where neither FFmpeg nor PulseAudio is loaded, and
    /// the command returns once it is saved; anything else (a start, found without opening the
    /// library; a library that does not open) is handed to `cravey-media`, which takes the
    /// toggle again (stopping one that started meanwhile) and says what fails.
    package func run() throws {
        guard toggle, RecordToggle.isHeld(in: options.libraryURL), let library = try? options.open() else {
            throw CommandRoute.HandOff()
        }
        try RecordToggle(folder: library.url).stopOther()
        Terminal.diagnostic("Stopped the recording that was running; it is saved.")
    }

    package func validate() throws {
        // Less than 0.1 s is a typo, not a clip: refused here (64), not recorded as nothing (69).
        // NaN fails both comparisons.
        if let seconds, !(seconds >= 0.1 && seconds <= 24 * 3600) {
            throw ValidationError("--seconds must be from 0.1 to 86400 (24 hours), not \(seconds).")
        }
        if !video, camera != nil || size != nil || fps != nil {
            throw ValidationError("--camera, --size and --fps choose the camera's pictures: add --video to record video.")
        }
        if let size, Self.parseSize(size) == nil {
            throw ValidationError("--size must be WIDTHxHEIGHT in even numbers from 32 to 4096, such as 1280x720, not \(CraveyError.quoted(size)).")
        }
        if let fps, !(1...120).contains(fps) {
            throw ValidationError("--fps must be from 1 to 120, not \(fps).")
        }
        if camera?.isEmpty == true {
            throw ValidationError("--camera needs a device path such as /dev/video0, or `test`.")
        }
    }

    /// "1280x720" as (1280, 720): even numbers from 32 to 4096; nil for anything else.
    static func parseSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let width = Int(parts[0]), let height = Int(parts[1]) else { return nil }
        let valid = { (side: Int) in (32...4096).contains(side) && side % 2 == 0 }
        return valid(width) && valid(height) ? (width, height) : nil
    }
}
