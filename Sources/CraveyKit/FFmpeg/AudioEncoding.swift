/// How an audio encoder is set up (``Encoder/init(_:globalHeader:)``): the codec by libavcodec's
/// name, the samples it takes, its rate, channels and bit rate. A value, so that code outside
/// this folder describes an encoder without reaching into its `AVCodecContext`.
struct AudioEncoding {
    /// The sample format the encoder takes.
    enum Samples {
        /// 32-bit float planar (`fltp`): what FFmpeg's native `aac` wants, and what the
        /// recorder's resampler gives it.
        case floatPlanar
        /// The codec's own first choice, as the `ffmpeg` tool picks it (`s16` for `libopus` and
        /// `pcm_s16le`, `s32p` for `libmp3lame`); `s16` for a codec that names none.
        case codecsFirst
    }

    /// The encoder's name in libavcodec: `aac`, `libopus`, `libmp3lame`, `libvorbis`, `pcm_s16le`.
    var codec: String
    var sampleRate: Int
    /// The channels, in the usual layout for their number (mono, stereo...).
    var channels: Int
    /// Bits a second; 0 for an encoder without one (PCM).
    var bitRate: Int
    var samples: Samples = .floatPlanar
    /// Leaves out of the output what changes from one FFmpeg build to another (the encoder's
    /// version tag): the same sound, the same bytes (`AV_CODEC_FLAG_BITEXACT`).
    var bitExact = false
}
