/// A V4L2 camera: its device file, its name and the modes it offers (``Cameras/list()``).
public struct CameraDevice: Sendable, Equatable, Codable {
    /// The device file, for example `/dev/video0`; what `--camera` takes.
    public var path: String
    /// The driver's name for it (`VIDIOC_QUERYCAP`'s card), for example "Integrated Camera:
    /// Integrated C"; `--camera` takes it too, when no other camera has the same name.
    public var name: String
    /// Where it is attached (`VIDIOC_QUERYCAP`'s bus_info), for example "usb-0000:00:14.0-6".
    public var bus: String
    /// What it can capture, in the driver's order: each pixel format's sizes and frame rates.
    public var modes: [CameraMode]

    public init(path: String, name: String, bus: String, modes: [CameraMode]) {
        (self.path, self.name, self.bus, self.modes) = (path, name, bus, modes)
    }
}
