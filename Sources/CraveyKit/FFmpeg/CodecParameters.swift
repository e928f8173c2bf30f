internal import CFFmpeg

/// A copy of one stream's codec parameters (`AVCodecParameters`): the codec, its format and its
/// extradata, as an ``Encoder`` was opened with or a ``Demuxer``'s stream declares, and the time
/// base its timestamps count in.
///
/// A snapshot that owns its copy: the encoder or the input it came from may go first, and
/// nothing it is handed to (a ``Muxer``'s stream, a ``Decoder``) reads their contexts.
final class CodecParameters {
    /// The copy, for a C call that reads it (`avcodec_parameters_copy`,
    /// `avcodec_parameters_to_context`); nothing changes it.
    let pointer: UnsafePointer<AVCodecParameters>
    /// The time base of the stream's timestamps.
    let timeBase: AVRational

    /// Copies what `fill` writes into fresh parameters. The corresponding C function is
    /// `avcodec_parameters_alloc`.
    init(timeBase: AVRational,
         filling fill: (UnsafeMutablePointer<AVCodecParameters>) throws(FFmpegError) -> Void) throws(FFmpegError) {
        guard let parameters = avcodec_parameters_alloc() else { throw FFmpegError.outOfMemory }
        do {
            try fill(parameters)
        } catch {
            var freed: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&freed)
            throw error
        }
        pointer = UnsafePointer(parameters)
        self.timeBase = timeBase
    }

    deinit {
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = UnsafeMutablePointer(mutating: pointer)
        avcodec_parameters_free(&parameters)
    }

    /// The codec these parameters describe.
    var codecID: AVCodecID { pointer.pointee.codec_id }
}

@available(*, unavailable)
extension CodecParameters: Sendable {}
