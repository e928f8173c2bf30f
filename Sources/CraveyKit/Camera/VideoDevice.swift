internal import CV4L2
import Glibc
import SystemPackage

/// An open V4L2 device file, asked what it is and what it offers; closed in `deinit`. Opened
/// read-only and non-blocking: asking takes the camera from no one, not even one that is busy
/// capturing for another program.
final class VideoDevice {
    /// What `VIDIOC_QUERYCAP` says of the device.
    struct Capability {
        var card: String
        var bus: String
        /// The device's own capabilities (device_caps when the driver fills it in, else the
        /// capabilities of the whole physical device).
        var capabilities: UInt32
        /// Whether it captures pictures through the single-planar API, as a camera does
        /// (a camera's metadata node, a video output or a codec does not).
        var capturesVideo: Bool { capabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 }
    }

    /// A pixel format `VIDIOC_ENUM_FMT` lists.
    struct Format {
        var code: UInt32
        var fourCC: String
        var isCompressed: Bool
    }

    private let descriptor: Int32

    /// Opens `path`. The corresponding C function is `open`.
    init(path: String) throws(Errno) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The device's name, bus and capabilities. The corresponding request is `VIDIOC_QUERYCAP`.
    func capability() throws(Errno) -> Capability {
        var capability = v4l2_capability()
        try request(cravey_vidioc_querycap(), &capability)
        let capabilities = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0
            ? capability.device_caps : capability.capabilities
        return Capability(card: Self.string(capability.card), bus: Self.string(capability.bus_info),
                          capabilities: capabilities)
    }

    /// The pixel formats it captures in; throws when the device fails to answer (it was
    /// unplugged). The corresponding request is `VIDIOC_ENUM_FMT`.
    func formats() throws(Errno) -> [Format] {
        try enumerate { (index) throws(Errno) -> Format? in
            var format = v4l2_fmtdesc()
            format.index = index
            format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard try entry(cravey_vidioc_enum_fmt(), &format) else { return nil }
            return Format(code: format.pixelformat, fourCC: Self.fourCC(format.pixelformat),
                          isCompressed: format.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0)
        }
    }

    /// The sizes it captures `format` at: the driver's list, or for a range (stepwise or
    /// continuous) its largest size and the usual sizes inside it, largest first; throws when
    /// the device fails to answer. The corresponding request is `VIDIOC_ENUM_FRAMESIZES`.
    func sizes(of format: UInt32) throws(Errno) -> [(width: Int, height: Int)] {
        var first = v4l2_frmsizeenum()
        first.pixel_format = format
        guard try entry(cravey_vidioc_enum_framesizes(), &first) else { return [] }
        guard first.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue else {
            let range = first.stepwise
            return Self.sizes(width: (Int(range.min_width), Int(range.max_width), Int(max(range.step_width, 1))),
                              height: (Int(range.min_height), Int(range.max_height), Int(max(range.step_height, 1))))
        }
        return try enumerate { (index) throws(Errno) -> (width: Int, height: Int)? in
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = format
            guard try entry(cravey_vidioc_enum_framesizes(), &size),
                  size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue else { return nil }
            return (Int(size.discrete.width), Int(size.discrete.height))
        }
    }

    /// The frame rates it captures `format` at at one size, highest first: the driver's list,
    /// or for a range its ends and the usual rates between them. Empty when the driver does not
    /// say; throws when the device fails to answer. The corresponding request is
    /// `VIDIOC_ENUM_FRAMEINTERVALS`.
    func frameRates(of format: UInt32, width: Int, height: Int) throws(Errno) -> [Double] {
        func interval(_ index: UInt32) throws(Errno) -> v4l2_frmivalenum? {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = format
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            return try entry(cravey_vidioc_enum_frameintervals(), &interval) ? interval : nil
        }
        guard let first = try interval(0) else { return [] }
        var rates: [Double]
        if first.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
            rates = try enumerate { (index) throws(Errno) -> Double?? in
                guard let next = try interval(index), next.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue else { return nil }
                return Self.rate(next.discrete)
            }.compactMap { $0 }
        } else {
            // The shortest interval is the highest rate.
            let (fastest, slowest) = (Self.rate(first.stepwise.min), Self.rate(first.stepwise.max))
            rates = [fastest, slowest].compactMap { $0 }
            if let fastest, let slowest {
                rates += Self.usualRates.filter { $0 > slowest && $0 < fastest }
            }
        }
        return Array(Set(rates)).sorted(by: >)
    }

    /// Frames a second from a frame interval in seconds, to the thousandth (333333/10000000 is 30).
    static func rate(_ interval: v4l2_fract) -> Double? {
        guard interval.numerator > 0, interval.denominator > 0 else { return nil }
        return (Double(interval.denominator) / Double(interval.numerator) * 1000).rounded() / 1000
    }

    /// Rates offered inside a driver's range.
    static let usualRates: [Double] = [120, 60, 50, 30, 25, 24, 20, 15, 10, 5]

    /// Sizes offered inside a driver's range, with its largest.
    static let usualSizes: [(width: Int, height: Int)] = [
        (3840, 2160), (2560, 1440), (1920, 1080), (1600, 1200), (1280, 960), (1280, 720), (1024, 768),
        (960, 540), (800, 600), (640, 480), (640, 360), (352, 288), (320, 240), (176, 144), (160, 120),
    ]

    /// The largest size of a range and the usual sizes that fit its steps, largest first.
    static func sizes(width: (min: Int, max: Int, step: Int), height: (min: Int, max: Int, step: Int)) -> [(width: Int, height: Int)] {
        func fits(_ value: Int, _ range: (min: Int, max: Int, step: Int)) -> Bool {
            value >= range.min && value <= range.max && (value - range.min) % range.step == 0
        }
        let inside = usualSizes.filter {
            fits($0.width, width) && fits($0.height, height) && ($0.width, $0.height) != (width.max, height.max)
        }
        return (width.max > 0 && height.max > 0 ? [(width.max, height.max)] : []) + inside
    }

    /// `MJPG` for V4L2_PIX_FMT_MJPEG: the code's four bytes, low byte first, trailing spaces
    /// dropped ("Y16 " is "Y16"). A format whose code is big-endian has its high bit set; it
    /// reads as "<code>-BE".
    static func fourCC(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: (code & 0x7fff_ffff) >> (8 * $0)) }
        let text = String(decoding: bytes.map { (32..<127).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        let trimmed = String(text.reversed().drop { $0 == " " }.reversed())
        return code & 0x8000_0000 != 0 ? trimmed + "-BE" : trimmed
    }

    /// A fixed-size C string field (`__u8 card[32]`) as a String, up to its first NUL.
    private static func string<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Runs `body` with 0, 1, 2... until it returns nil, as V4L2's enumerations end in EINVAL.
    /// At most 1,000 entries, against a driver that never ends its list.
    private func enumerate<T>(_ body: (UInt32) throws(Errno) -> T?) throws(Errno) -> [T] {
        var items: [T] = []
        for index in 0..<UInt32(1000) {
            guard let item = try body(index) else { break }
            items.append(item)
        }
        return items
    }

    /// One entry of an enumeration: false past its end (EINVAL, how V4L2 ends every list) or
    /// when the driver keeps no such list (ENOTTY); any other failure throws.
    private func entry<T>(_ request: UInt, _ argument: inout T) throws(Errno) -> Bool {
        do {
            try self.request(request, &argument)
            return true
        } catch where error.rawValue == EINVAL || error.rawValue == ENOTTY {
            return false
        }
    }

    /// One `ioctl` on the device, again when a signal interrupts it.
    /// `argument` is one of videodev2.h's plain C structs.
    private func request<T>(_ request: UInt, _ argument: inout T) throws(Errno) {
        let result = withUnsafeMutableBytes(of: &argument) { cravey_v4l2_ioctl(descriptor, request, $0.baseAddress) }
        guard result == 0 else { throw Errno(rawValue: errno) }
    }
}

@available(*, unavailable)
extension VideoDevice: Sendable {}
