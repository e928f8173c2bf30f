import Foundation

/// Encodes a recording into a fragmented MP4 that stays playable on disk at every moment
/// (half-second fragments, flushed as written: a crash loses at most the last half second):
/// signed 16-bit PCM to AAC, and for a video, yuv420p pictures to H.264.
///
/// Lives on the recording's encoder thread; nothing else touches it. Dropped without `finish()`,
/// it gives the file up as it stands (what was written stays, playable).
final class RecordingFileWriter {
    /// The pictures of a video recording: yuv420p of this size, at a constant rate.
    struct VideoFormat: Sendable, Equatable {
        var width: Int
        var height: Int
        var frameRate: Int
    }

    /// `.m4a` for an audio recording, `.mp4` for a video.
    let container: Container
    private let file: MediaFile
    private let muxer: Muxer
    private let audio: AACEncoderStage
    private let video: H264EncoderStage?

    /// The muxer options that make an MP4 fragmented and playable while it is written.
    static let fragmentedHeader = [
        "movflags": "+frag_keyframe+empty_moov+default_base_moof",
        "frag_duration": "500000",
    ]

    /// Creates the `.partial` file of recording `id` in `storage` (an `.m4a` for audio, an `.mp4`
    /// with `video`), opens the encoders and writes the header of a fragmented MP4; on failure no
    /// file is left behind. A file that cannot be created throws `Errno`.
    init(partialOf id: UUID, in storage: FileStorageManager, sampleRate: Int, channels: Int, bitRate: Int,
         video format: VideoFormat? = nil) throws {
        let type: RecordingType = format == nil ? .audio : .video
        container = Container(for: type)
        let file = try storage.createPartial(id: id, type: type)
        do {
            let muxer = try Muxer(writingTo: file, format: container.formatName)
            do {
                video = try format.map { (format) throws(FFmpegError) in
                    try H264EncoderStage(width: Int32(format.width), height: Int32(format.height),
                                         frameRate: Int32(format.frameRate), into: muxer)
                }
                let resampler = try Resampler(from: .signed16(sampleRate: sampleRate, channels: channels),
                                              to: .floatPlanar(sampleRate: sampleRate, channels: channels))
                audio = try AACEncoderStage(muxer: muxer, resampler: resampler, bitRate: bitRate, primingAtZero: format != nil)
                muxer.flushEveryPacket()
                try muxer.writeHeader(options: Self.fragmentedHeader)
            } catch {
                muxer.abandon()
                throw error
            }
            self.muxer = muxer
        } catch {
            storage.discard(file)
            throw error
        }
        self.file = file
    }

    deinit {
        muxer.abandon()  // does nothing once finish() closed it
    }

    /// Samples of encoder delay in front of the audio, hidden by an edit list after a rewrite.
    var primingSamples: Int64 { audio.primingSamples }

    /// Appends interleaved samples and writes every whole encoder frame they complete.
    func append(_ samples: [Int16]) throws {
        try audio.push(interleaved: samples)
    }

    /// Encodes a picture (yuv420p, of the video's size) as frame number `index` of the video.
    func append(_ picture: Frame, frame index: Int64) throws {
        try video?.push(picture, frame: index)
    }

    /// Where the file is.
    var url: URL { file.url }

    /// Drains the encoders, writes the trailer and closes the file. The file is complete afterwards.
    func finish() throws {
        try video?.finish()
        try audio.finish()
        try muxer.close()
        try file.close()
    }
}

extension RecordingFileWriter {
    /// A recording's file from its creation to its finished form, for an encoder stage: creates
    /// the writer (`make`), runs the stage's loop (`encode`, which counts in `written` what it has
    /// handed the writer), finishes the file, rewrites it as a normal MP4 with an edit list hiding
    /// the AAC priming, and measures its loudness (nil if that failed).
    ///
    /// The file stays locked from its creation until it is saved (``FileStorageManager/create(_:)``).
    /// On a failure a file holding something is kept and released, no longer this process's, for
    /// `doctor --repair` to register, and one holding nothing goes; the error names the file and
    /// says what was kept. A cancellation, or the capture stage's own error, surfaces as it is.
    /// Should the rewrite fail (for any reason, running out of memory included), the fragmented
    /// file, which every reader handles, stays: the recording is saved either way.
    static func record(_ url: URL, in storage: FileStorageManager,
                       make: () throws -> RecordingFileWriter,
                       encode: (RecordingFileWriter, inout Int) throws -> Void) throws -> LoudnessMeasurement? {
        let writer: RecordingFileWriter
        do {
            // The writer creates the file and removes it again if it cannot start.
            writer = try make()
        } catch {
            throw CraveyError.writing(error, to: url)
        }
        var written = 0
        do {
            try encode(writer, &written)
            try writer.finish()
        } catch {
            if written == 0 { try? storage.remove(url) } else { storage.release(url) }
            if error is CancellationError { throw error }
            var failure = CraveyError.writing(error, to: url)
            if written > 0 {
                failure.message += " What was recorded until then is kept in that file; once there is room, `cravey doctor --repair` adds it to the library."
            }
            throw failure
        }
        do {
            try storage.rewriteAsNormalMP4(url, format: writer.container.formatName, audioPriming: writer.primingSamples)
        } catch {}
        return (try? LoudnessMeter.measure(fileAt: url)) ?? nil
    }
}

@available(*, unavailable)
extension RecordingFileWriter: Sendable {}
