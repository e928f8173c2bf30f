import Foundation
internal import CFFmpeg

/// FFmpeg's own logging: silent by default, since cravey reports every failure itself with the
/// file and the fix; `CRAVEY_FFMPEG_LOG=1` brings FFmpeg's messages back for debugging.
enum FFmpegLog {
    /// Applies the log level once per process. The corresponding C function is `av_log_set_level`.
    static let configure: Void = {
        let verbose = !(ProcessInfo.processInfo.environment["CRAVEY_FFMPEG_LOG"] ?? "").isEmpty
        av_log_set_level(verbose ? AV_LOG_VERBOSE : AV_LOG_QUIET)
    }()
}
