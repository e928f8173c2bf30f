import Foundation
internal import CFFmpeg

extension Demuxer {
    /// Opens a capture device through one of libavdevice's inputs: `v4l2` with a device path
    /// (`/dev/video0`), or `lavfi` with a filter graph (`testsrc2=size=1280x720:rate=30`), with
    /// that input's options (`video_size`, `framerate`, `input_format`).
    ///
    /// The stream information comes from the device's own header (size, pixel format or codec):
    /// nothing is read ahead, so the first packet read is the first the device delivers.
    /// The corresponding C functions are `av_find_input_format` and `avformat_open_input`.
    convenience init(device: String, format name: String, options: [String: String] = [:]) throws(FFmpegError) {
        try CaptureDevices.register()
        guard let format = av_find_input_format(name) else {
            throw FFmpegError(code: FFmpegError.demuxerNotFound.code, operation: "av_find_input_format(\(name))")
        }
        var dictionary = OptionDictionary(options)
        defer { dictionary.free() }
        try self.init(opening: device, format: format, options: &dictionary.pointer)
    }
}

/// libavdevice, loaded on first use: linked, it would load SDL, GL, X11 and JACK into every
/// `cravey-media` process, the audio recorder's included.
enum CaptureDevices {
    private static let registered = Result { () throws(FFmpegError) in
        // libavdevice's major version moves with libavformat's (59 in FFmpeg 5.1).
        let library = try LoadedLibrary("libavdevice.so.\(LIBAVFORMAT_VERSION_MAJOR)", missing: .demuxerNotFound)
        let registerAll: @convention(c) () -> Void = try library.symbol("avdevice_register_all")
        registerAll()
    }

    /// Registers libavdevice's inputs (`v4l2`, `lavfi`...) with libavformat, once per process.
    /// The corresponding C function is `avdevice_register_all`.
    static func register() throws(FFmpegError) {
        try registered.get()
    }
}
