/// A camera of this machine (a V4L2 device): its device file and its name, either of which
/// ``RecordingOptions/camera`` takes.
package struct CameraDevice: Sendable, Equatable, Codable {
    /// The device file, for example `/dev/video0`.
    package var path: String
    /// The driver's name for it (`VIDIOC_QUERYCAP`'s card), for example "Integrated Camera:
    /// Integrated C"; a camera can be named by it too, when no other camera has the same name.
    package var name: String
    /// Where it is attached (`VIDIOC_QUERYCAP`'s bus_info), for example "usb-0000:00:14.0-6".
    package var bus: String
    /// What it can capture, in the driver's order: each pixel format's sizes and frame rates.
    package var modes: [CameraMode]

    package init(path: String, name: String, bus: String, modes: [CameraMode]) {
        (self.path, self.name, self.bus, self.modes) = (path, name, bus, modes)
    }

    /// Every camera: each `/dev/video*` that captures video, in number order. A device file
    /// that is not a camera or cannot be opened is left out; no camera is an empty list.
    package static func list() throws -> [CameraDevice] {
        try Cameras.list()
    }
}
