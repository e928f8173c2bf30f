import Foundation
import SystemPackage

/// The cameras on this machine, asked through V4L2 directly (`VIDIOC_QUERYCAP`,
/// `VIDIOC_ENUM_FMT`, `VIDIOC_ENUM_FRAMESIZES`, `VIDIOC_ENUM_FRAMEINTERVALS`), not through
/// libavdevice, which the audio recorder must not load.
package enum Cameras {
    /// Every camera: each `/dev/video*` that captures video, in number order (`video2` before
    /// `video10`). A device file that is not a camera (a camera's metadata node, a video output)
    /// or cannot be opened (no permission) is left out; no camera is an empty list, not an error.
    package static func list() throws(CraveyError) -> [CameraDevice] {
        try list(in: "/dev")
    }

    /// ``list()`` over the `video*` files of `folder`.
    package static func list(in folder: String) throws(CraveyError) -> [CameraDevice] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw CraveyError(.other, "Cannot read \(folder) to look for cameras: \(error.localizedDescription).")
        }
        let numbered = names.compactMap { name in
            name.hasPrefix("video") ? Int(name.dropFirst(5)).map { (number: $0, name: name) } : nil
        }
        // Left out, as the contract above says: a device file that is no camera, or not ours to open.
        return numbered.sorted { $0.number < $1.number }.compactMap { try? camera(at: "\(folder)/\($0.name)") }
    }

    /// The camera `pathOrName` names: a device file (any argument holding a `/`, links followed,
    /// so `/dev/v4l/by-id/...` works), else a name as `cravey devices` shows it.
    ///
    /// Throws `.unavailable` (exit 69) when there is no such camera, it is not a camera, or it
    /// cannot be opened, naming it, listing the cameras there are and offering the audio
    /// recorder; `.invalidInput` (exit 64) for a name two cameras share.
    package static func resolve(_ pathOrName: String) throws(CraveyError) -> CameraDevice {
        if pathOrName.contains("/") {
            do {
                return try camera(at: pathOrName)
            } catch {
                throw CraveyError(.unavailable, error.message + " " + others(), advice: .chooseCamera, underlying: error.underlying)
            }
        }
        let cameras = try list()
        let named = cameras.filter { $0.name == pathOrName }
        guard named.count <= 1 else {
            throw CraveyError(.invalidInput, "\(named.count) cameras are called \"\(pathOrName)\": \(named.map(\.path).joined(separator: ", ")). Name one by its path instead.")
        }
        guard let camera = named.first else {
            throw CraveyError(.unavailable, "There is no camera called \(CraveyError.quoted(pathOrName, "\"")). " + others(cameras), advice: .chooseCamera)
        }
        return camera
    }

    /// The cameras there are: the end of every message saying a camera cannot be used.
    static func others(_ cameras: [CameraDevice]? = nil) -> String {
        // Only the end of a message about another failure: a /dev that cannot be read adds nothing.
        let cameras = cameras ?? (try? list()) ?? []
        let there = cameras.isEmpty
            ? "No camera was found on this machine."
            : "Cameras here: " + cameras.map { "\($0.path) (\($0.name))" }.joined(separator: ", ") + "."
        return there
    }

    /// The camera at `path`, asked what it offers; a message without the list of cameras when
    /// it is none.
    static func camera(at path: String) throws(CraveyError) -> CameraDevice {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = Errno(rawValue: errno)
            throw code == .noSuchFileOrDirectory
                ? CraveyError(.unavailable, "There is no camera at \(path): no such device.", underlying: code)
                : CraveyError(.unavailable, "Cannot reach the camera at \(path): \(code).", underlying: code)
        }
        guard info.st_mode & S_IFMT == S_IFCHR else {
            throw CraveyError(.unavailable, "\(path) is not a camera: it is \(kind(of: info.st_mode)), not a video device.")
        }
        let device: VideoDevice
        do {
            device = try VideoDevice(path: path)
        } catch {
            let fix: String
            switch error {
            case .permissionDenied: fix = "permission denied. Add yourself to the `video` group (sudo usermod -aG video $USER) and log in again."
            case .resourceBusy: fix = "another program is using it. Close that program and try again."
            default: fix = "\(error)."
            }
            throw CraveyError(.unavailable, "Cannot open the camera \(path): \(fix)", underlying: error)
        }
        let capability: VideoDevice.Capability
        do {
            capability = try device.capability()
        } catch {
            throw CraveyError(.unavailable, "\(path) is not a camera: it is not a video device (\(error)).", underlying: error)
        }
        guard capability.capturesVideo else {
            throw CraveyError(.unavailable, "\(path) (\(capability.card)) is not a camera: it is a video device that captures no pictures (a camera's metadata node, a video output or a codec).")
        }
        var modes: [CameraMode] = []
        do {
            for format in try device.formats() {
                for size in try device.sizes(of: format.code) {
                    modes.append(CameraMode(
                        pixelFormat: format.fourCC, width: size.width, height: size.height,
                        frameRates: try device.frameRates(of: format.code, width: size.width, height: size.height),
                        isCompressed: format.isCompressed))
                }
            }
        } catch {
            throw CraveyError(.unavailable, "Cannot ask the camera \(path) (\(capability.card)) what it captures: \(error).", underlying: error)
        }
        return CameraDevice(path: path, name: capability.card, bus: capability.bus, modes: modes)
    }

    /// "a regular file", "a folder"...: what a path that is no device is.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFBLK: "a block device (a disk)"
        default: "not a device"
        }
    }
}
