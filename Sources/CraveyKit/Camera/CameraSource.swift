import Foundation

/// Where a video recording's pictures come from.
package enum CameraSource: Sendable, Equatable, CustomStringConvertible {
    /// A V4L2 camera, by its device path (`/dev/video0`) or its name as ``Cameras/list()`` gives it.
    case device(String)
    /// The synthetic camera: a moving test pattern with a running clock, delivered in real time.
    case test

    /// The first camera, `/dev/video0`.
    package static let `default` = CameraSource.device("/dev/video0")

    /// `test` for the synthetic camera, anything else a device.
    package init(argument: String) {
        self = argument == "test" ? .test : .device(argument)
    }

    package var description: String {
        switch self {
        case .device(let path): path
        case .test: "test"
        }
    }
}
