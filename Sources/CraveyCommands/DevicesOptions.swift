import ArgumentParser
import CraveyCore

/// `cravey devices`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Devices` command runs it). See ``Cravey``.
package struct DevicesOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the sound server's sources (for `record --device`) and sinks (for `play --device`), and the cameras.",
        discussion: """
            Cameras are listed after the sound devices: every /dev/video* that captures video, asked through \
            V4L2 itself, each with its modes, one a line: pixel format, size and frame rates \
            (`MJPG 1280x720 30,15 fps`). "No cameras found" goes to stderr when there are none.

            --json prints one array: each source as before (name, description, isDefault: the \
            default source, isMonitor), each sink and each camera, all with kind ("source", \
            "sink" or "camera") and isDefaultSink. A camera's name is its path and its \
            description its name; it adds bus and modes (pixelFormat, width, height, frameRates, \
            isCompressed).
            """)

    /// Not used: accepted so the global `cravey --library PATH devices` works as for every command.
    @OptionGroup package var options: LibraryOptions

    @Flag(help: "Print a JSON array of the sources, sinks and cameras.")
    package var json = false

    package init() {}
}
