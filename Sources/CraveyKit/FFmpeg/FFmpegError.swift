internal import CFFmpeg
import Foundation

/// An error returned by an FFmpeg library call: the negative `AVERROR` code and the call that failed.
package struct FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The negative error code FFmpeg returned.
    package let code: Int32
    /// The operation that failed, for example `avformat_open_input`.
    package let operation: String

    /// FFmpeg's text for the code. The corresponding C function is `av_strerror`.
    package var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 {
            return "unknown FFmpeg error \(code)"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package var description: String { "\(operation): \(message)" }

    package static func == (lhs: FFmpegError, rhs: FFmpegError) -> Bool { lhs.code == rhs.code }

    static let endOfFile = FFmpegError(code: cravey_averror_eof(), operation: "")
    static let tryAgain = FFmpegError(code: cravey_averror(EAGAIN), operation: "")
    static let invalidData = FFmpegError(code: cravey_averror_invaliddata(), operation: "")
    static let decoderNotFound = FFmpegError(code: cravey_averror_decoder_not_found(), operation: "")
    static let encoderNotFound = FFmpegError(code: cravey_averror_encoder_not_found(), operation: "")
    static let streamNotFound = FFmpegError(code: cravey_averror_stream_not_found(), operation: "")
    static let outOfMemory = FFmpegError(code: cravey_averror(ENOMEM), operation: "")
    static let filterNotFound = FFmpegError(code: cravey_averror_filter_not_found(), operation: "")
    static let demuxerNotFound = FFmpegError(code: cravey_averror_demuxer_not_found(), operation: "")

    /// The `errno` value behind an `AVERROR(errno)` code (a full disk, a refused folder), if any.
    var posixErrno: Int32? { code < 0 && -code < 4096 ? -code : nil }
}

/// Throws an ``FFmpegError`` when an FFmpeg call returned a negative code; returns the code otherwise.
@discardableResult
func check(_ code: Int32, _ operation: StaticString = #function) throws(FFmpegError) -> Int32 {
    if code < 0 { throw FFmpegError(code: code, operation: "\(operation)") }
    return code
}

/// Runs `body` and returns its result, or nil when it failed: for a step that may fail on a
/// damaged or unseekable file. Running out of memory says nothing about the file and is thrown.
func unlessOutOfMemory<T>(_ body: () throws(FFmpegError) -> T) throws(FFmpegError) -> T? {
    do {
        return try body()
    } catch where error == .outOfMemory {
        throw error
    } catch {
        return nil
    }
}

/// What a walk's callback (or a step of it) says: read on, or stop here.
enum WalkStep {
    case next
    case stop
}

/// What a send/receive call of the codec API told us, with EAGAIN and EOF as control flow.
enum CodecStep {
    case ready
    case needsMore
    case endOfStream
}

func codecStep(_ code: Int32, _ operation: StaticString) throws(FFmpegError) -> CodecStep {
    switch code {
    case 0...: return .ready
    case FFmpegError.tryAgain.code: return .needsMore
    case FFmpegError.endOfFile.code: return .endOfStream
    default: throw FFmpegError(code: code, operation: "\(operation)")
    }
}

let noTimestamp = cravey_av_nopts_value()
