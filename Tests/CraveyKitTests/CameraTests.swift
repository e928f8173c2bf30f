import CraveyCommands
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Cameras: the mode chooser on tables laptop cameras really list, and the enumeration on this
/// machine, which has no camera.
@Suite("Cameras", .temporaryFiles)
struct CameraTests {
    static func mode(_ format: String, _ width: Int, _ height: Int, _ rates: [Double]) -> CameraMode {
        CameraMode(pixelFormat: format, width: width, height: height, frameRates: rates, isCompressed: format != "YUYV")
    }

    /// A 720p USB laptop camera (a Chicony "Integrated Camera", as `v4l2-ctl --list-formats-ext`
    /// shows it): raw YUYV reaches 30 fps only up to 640x480, MJPEG reaches it at every size.
    static let laptop: [CameraMode] = [
        mode("MJPG", 1280, 720, [30]), mode("MJPG", 960, 540, [30]), mode("MJPG", 848, 480, [30]),
        mode("MJPG", 640, 480, [30]), mode("MJPG", 640, 360, [30]), mode("MJPG", 320, 240, [30]),
        mode("YUYV", 640, 480, [30]), mode("YUYV", 640, 360, [30]), mode("YUYV", 424, 240, [30]),
        mode("YUYV", 320, 240, [30]), mode("YUYV", 1280, 720, [10]), mode("YUYV", 960, 540, [15]),
    ]

    /// A 1080p webcam (a Logitech C920 class): YUYV first, with its slower rates listed, and
    /// H.264 besides MJPEG.
    static let webcam: [CameraMode] = [
        mode("YUYV", 640, 480, [30, 24, 20, 15, 10, 7.5, 5]), mode("YUYV", 1280, 720, [10, 7.5, 5]),
        mode("YUYV", 1920, 1080, [5]),
        mode("H264", 1920, 1080, [30, 24, 20, 15, 10, 7.5, 5]), mode("H264", 1280, 720, [30, 24, 20, 15, 10, 7.5, 5]),
        mode("MJPG", 1920, 1080, [30, 24, 20, 15, 10, 7.5, 5]), mode("MJPG", 1280, 720, [60, 30, 24, 20, 15, 10, 7.5, 5]),
        mode("MJPG", 640, 480, [30, 24, 20, 15, 10, 7.5, 5]),
    ]

    @Test("720p at 30 fps: MJPEG where raw YUYV reaches only 10 fps at that size")
    func compressedWhenRawIsTooSlow() throws {
        // Given a laptop camera and a 1080p webcam
        // When 1280x720 at 30 fps is asked of each
        let laptop = try #require(CameraMode.best(in: Self.laptop, width: 1280, height: 720, fps: 30))
        let webcam = try #require(CameraMode.best(in: Self.webcam, width: 1280, height: 720, fps: 30))

        // Then both give MJPEG 1280x720 at 30 (not raw at 10, not H.264)
        #expect(laptop == CameraMode.Choice(mode: Self.mode("MJPG", 1280, 720, [30]), frameRate: 30))
        #expect(webcam.mode.pixelFormat == "MJPG" && webcam.mode.width == 1280 && webcam.frameRate == 30)
    }

    @Test("640x480 at 30 fps: raw YUYV, which reaches the rate and needs no decoding")
    func rawWhenItReachesTheRate() throws {
        let laptop = try #require(CameraMode.best(in: Self.laptop, width: 640, height: 480, fps: 30))
        let webcam = try #require(CameraMode.best(in: Self.webcam, width: 640, height: 480, fps: 30))
        #expect(laptop.mode == Self.mode("YUYV", 640, 480, [30]) && laptop.frameRate == 30)
        #expect(webcam.mode.pixelFormat == "YUYV" && webcam.mode.width == 640 && webcam.frameRate == 30)
    }

    @Test("raw at a slow rate it reaches; a size the camera lacks gives the nearest one")
    func nearestSizeAndRate() throws {
        // 1280x720 at 10 fps: raw reaches it
        let slow = try #require(CameraMode.best(in: Self.laptop, width: 1280, height: 720, fps: 10))
        #expect(slow.mode.pixelFormat == "YUYV" && slow.frameRate == 10)
        // 1920x1080 on a 720p camera: its largest, 1280x720, in MJPEG at 30
        let large = try #require(CameraMode.best(in: Self.laptop, width: 1920, height: 1080, fps: 30))
        #expect(large.mode.width == 1280 && large.mode.height == 720 && large.mode.pixelFormat == "MJPG")
        // 800x600, which the camera lacks: each side measured as a ratio, 848x480 is nearest
        // (6% wider, 20% lower) before 640x480 (20% narrower and lower) and 960x540
        let odd = try #require(CameraMode.best(in: Self.laptop, width: 800, height: 600, fps: 30))
        #expect(odd.mode.width == 848 && odd.mode.height == 480 && odd.mode.pixelFormat == "MJPG")
        // 60 fps where 30 is the most at 1080p: 30; at 720p the webcam's MJPEG has 60
        let fast = try #require(CameraMode.best(in: Self.webcam, width: 1920, height: 1080, fps: 60))
        #expect(fast.frameRate == 30 && fast.mode.pixelFormat == "MJPG")
        let sixty = try #require(CameraMode.best(in: Self.webcam, width: 1280, height: 720, fps: 60))
        #expect(sixty.frameRate == 60 && sixty.mode.pixelFormat == "MJPG")
        // 25 fps between 30 and 20, as near to each: the higher
        let between = try #require(CameraMode.best(in: [Self.mode("YUYV", 640, 480, [30, 20, 15])], width: 640, height: 480, fps: 25))
        #expect(between.frameRate == 30)
        // 12 fps: 10 is nearer than 15
        let twelve = try #require(CameraMode.best(in: Self.webcam, width: 640, height: 480, fps: 12))
        #expect(twelve.frameRate == 10 && twelve.mode.pixelFormat == "YUYV")
    }

    @Test("the recorder opens a camera in the chosen mode: libavdevice's input_format, video_size and framerate")
    func openingOptions() {
        // Given the laptop camera, and a camera that lists no mode
        let laptop = CameraDevice(path: "/dev/video0", name: "Integrated Camera", bus: "usb-0000:00:14.0-8", modes: Self.laptop)
        let silent = CameraDevice(path: "/dev/video1", name: "Virtual", bus: "platform:v4l2loopback", modes: [])

        // When the recorder asks each for 1280x720 at 30 fps, and the laptop for 640x480 and 1920x1080
        // Then MJPEG at 720p, raw YUYV at 480p, the nearest size for 1080p, and the request as it is
        // where the camera lists nothing
        #expect(CameraInput.v4l2Options(for: laptop, width: 1280, height: 720, frameRate: 30)
            == ["input_format": "mjpeg", "video_size": "1280x720", "framerate": "30"])
        #expect(CameraInput.v4l2Options(for: laptop, width: 640, height: 480, frameRate: 30)
            == ["input_format": "yuyv422", "video_size": "640x480", "framerate": "30"])
        #expect(CameraInput.v4l2Options(for: laptop, width: 1920, height: 1080, frameRate: 30)
            == ["input_format": "mjpeg", "video_size": "1280x720", "framerate": "30"])
        #expect(CameraInput.v4l2Options(for: silent, width: 1280, height: 720, frameRate: 30)
            == ["video_size": "1280x720", "framerate": "30"])
    }

    @Test("no modes: no choice; a mode whose driver names no rate is asked the requested one")
    func edges() {
        #expect(CameraMode.best(in: [], width: 1280, height: 720, fps: 30) == nil)
        let unknown = CameraMode.best(in: [Self.mode("YUYV", 640, 480, [])], width: 1280, height: 720, fps: 30)
        #expect(unknown?.frameRate == 30 && unknown?.mode.width == 640)
        // A size of zero (a broken driver) is never chosen
        #expect(CameraMode.best(in: [Self.mode("YUYV", 0, 0, [30])], width: 640, height: 480, fps: 30) == nil)
    }

    @Test("a mode reads as `MJPG 1280x720 30,15 fps`")
    func modeDescription() {
        #expect(Self.mode("MJPG", 1280, 720, [30, 15]).description == "MJPG 1280x720 30,15 fps")
        #expect(Self.mode("YUYV", 640, 480, [29.97, 7.5]).description == "YUYV 640x480 29.97,7.5 fps")
        #expect(Self.mode("YUYV", 640, 480, []).description == "YUYV 640x480")
    }

    @Test("a driver's range of sizes gives its largest and the usual sizes that fit its steps; four-character codes read")
    func ranges() {
        let sizes = VideoDevice.sizes(width: (16, 1920, 16), height: (16, 1080, 8)).map { "\($0.width)x\($0.height)" }
        #expect(sizes.first == "1920x1080" && sizes.contains("1280x720") && sizes.contains("640x480"))
        #expect(!sizes.contains("3840x2160") && !sizes.contains("1600x1200") && Set(sizes).count == sizes.count)
        // Steps of 100 from 100: of the usual sizes only 800x600 fits
        let stepped = VideoDevice.sizes(width: (100, 1000, 100), height: (100, 1000, 100)).map { "\($0.width)x\($0.height)" }
        #expect(stepped == ["1000x1000", "800x600"])
        #expect(VideoDevice.fourCC(0x4750_4A4D) == "MJPG" && VideoDevice.fourCC(0x5659_5559) == "YUYV")
        #expect(VideoDevice.fourCC(0x2036_3159) == "Y16")
    }

    @Test("this machine has no camera: an empty list, no error; /dev/video* files that are no camera are left out")
    func listWithoutCameras() throws {
        // Given this machine's /dev (no video devices here) and a folder whose video* are not devices
        let folder = temporaryFolder()
        try Data("not a camera".utf8).write(to: folder.appendingPathComponent("video0"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("video1"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("video2").path, withDestinationPath: "/dev/null")
        try Data().write(to: folder.appendingPathComponent("videos"))

        // When they are listed
        let here = try Cameras.list()
        let fake = try Cameras.list(in: folder.path)

        // Then there is no camera and no error
        let devices = try FileManager.default.contentsOfDirectory(atPath: "/dev").filter { $0.hasPrefix("video") }
        if devices.isEmpty { #expect(here.isEmpty) }
        #expect(fake.isEmpty)
    }

    @Test("a path that is no camera, or none, is exit 69 naming it, the cameras there are and the audio recorder",
          arguments: ["/dev/null", "regular", "folder", "/dev/video9"])
    func notACamera(_ argument: String) throws {
        // Given a path that is no camera
        let path: String
        switch argument {
        case "regular":
            path = temporaryFolder().appendingPathComponent("video0").path
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        case "folder": path = temporaryFolder().path
        default: path = argument
        }
        try #require(!FileManager.default.fileExists(atPath: "/dev/video9") || argument != "/dev/video9")

        // When it is resolved
        let error = #expect(throws: CraveyError.self) { try Cameras.resolve(path) }

        // Then: unavailable, what it is, what there is, and (on the command line) what to do instead
        #expect(error?.kind == .unavailable)
        let message = error.map(Messages.text) ?? ""
        #expect(message.contains(path) && message.contains("cravey record") && message.contains("cravey devices"), "\(message)")
        let expected = ["/dev/null": "not a video device", "regular": "a regular file", "folder": "a folder",
                        "/dev/video9": "no such device"][argument]!
        #expect(message.contains("not a camera") || argument == "/dev/video9", "\(message)")
        #expect(message.contains(expected), "\(message)")
        if try Cameras.list().isEmpty { #expect(message.contains("No camera was found"), "\(message)") }
    }

    @Test("a camera name nobody has is exit 69, naming it")
    func unknownName() {
        let error = #expect(throws: CraveyError.self) { try Cameras.resolve("Integrated Camera") }
        #expect(error?.kind == .unavailable)
        let message = error.map(Messages.text) ?? ""
        #expect(message.contains("\"Integrated Camera\"") == true && message.contains("cravey record") == true)
    }
}
