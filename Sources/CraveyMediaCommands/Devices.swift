import ArgumentParser
import CraveyCommands
import CraveyKit

/// Runs `cravey devices` (its command line is ``DevicesOptions``, which `cravey` shows in its help).
struct Devices: AsyncParsableCommand {
    static let configuration = DevicesOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: DevicesOptions

    func run() async throws {
        let sound = try await AudioDevice.sources().map { Device($0, kind: "source") } + AudioDevice.sinks().map { Device($0, kind: "sink") }
        let cameras = try CameraDevice.list()
        guard !command.json else { return try Terminal.printJSON(sound + cameras.map(Device.init)) }
        try Terminal.output(Format.table(["DEFAULT", "KIND", "NAME", "DESCRIPTION"], sound.map {
            [$0.isDefault || $0.isDefaultSink ? "*" : "", $0.kind, $0.name,
             $0.description + ($0.isMonitor ? " (monitor of an output)" : "")]
        }))
        guard !cameras.isEmpty else { return Terminal.diagnostic("No cameras found.") }
        // A camera's first mode on its line, each other mode on a line of its own below.
        let rows = cameras.flatMap { camera in
            let modes = camera.modes.isEmpty ? ["(no modes listed)"] : camera.modes.map(\.description)
            return [[camera.path, camera.name, modes[0]]] + modes.dropFirst().map { ["", "", $0] }
        }
        try Terminal.output("\n" + Format.table(["CAMERA", "NAME", "MODES"], rows))
    }

    /// One line of `devices`: a source, as the JSON always showed it, a sink or a camera. Sinks
    /// and cameras came later, so the keys a source had keep their meaning (`isDefault`: the
    /// default source) and the new ones are added: `kind` and `isDefaultSink`, and for a camera
    /// `bus` and `modes` (each with pixelFormat, width, height, frameRates highest first,
    /// isCompressed). A camera's `name` is its path and its `description` its name, as
    /// `record --camera` takes either.
    struct Device: Encodable {
        var name: String
        var description: String
        var isDefault: Bool
        var isMonitor: Bool
        var kind: String
        var isDefaultSink: Bool
        var bus: String?
        var modes: [CameraMode]?

        init(_ device: AudioDevice, kind: String) {
            (name, description, isMonitor, self.kind) = (device.name, device.description, device.isMonitor, kind)
            // A source's `isDefault` kept its meaning when sinks were added beside it.
            (isDefault, isDefaultSink) = kind == "source" ? (device.isDefault, false) : (false, device.isDefault)
        }

        init(_ camera: CameraDevice) {
            (name, description, isDefault, isMonitor, kind, isDefaultSink) =
                (camera.path, camera.name, false, false, "camera", false)
            (bus, modes) = (camera.bus, camera.modes)
        }
    }
}
