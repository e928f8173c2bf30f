import Foundation

/// Encodes signed 16-bit PCM to AAC in a fragmented MP4 that stays playable on disk at every
/// moment (half-second fragments, flushed as written: a crash loses at most the last half second).
///
/// Lives on the recording's encoder thread; nothing else touches it. Dropped without `finish()`,
/// it gives the file up as it stands (what was written stays, playable).
final class AudioFileWriter {
    private let file: MediaFile
    private let muxer: Muxer
    private let stage: AACEncoderStage

    /// Creates the `.partial` file of recording `id` in `storage`, opens the encoder and writes the
    /// header of a fragmented MP4; on failure no file is left behind. A file that cannot be
    /// created throws `Errno`.
    init(partialOf id: UUID, in storage: FileStorageManager, sampleRate: Int, channels: Int, bitRate: Int,
         format: String = Container.m4a.formatName) throws {
        let file = try storage.createPartial(id: id, type: .audio)
        do {
            let muxer = try Muxer(writingTo: file, format: format)
            do {
                let resampler = try Resampler(from: .signed16(sampleRate: sampleRate, channels: channels),
                                              to: .floatPlanar(sampleRate: sampleRate, channels: channels))
                stage = try AACEncoderStage(muxer: muxer, resampler: resampler, bitRate: bitRate)
                muxer.flushEveryPacket()
                try muxer.writeHeader(options: [
                    "movflags": "+frag_keyframe+empty_moov+default_base_moof",
                    "frag_duration": "500000",
                ])
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
    var primingSamples: Int64 { stage.primingSamples }

    /// Appends interleaved samples and writes every whole encoder frame they complete.
    func append(_ samples: [Int16]) throws {
        try stage.push(interleaved: samples)
    }

    /// Where the file is.
    var url: URL { file.url }

    /// Drains the encoder, writes the trailer and closes the file. The file is complete afterwards.
    func finish() throws {
        try stage.finish()
        try muxer.close()
        try file.close()
    }
}

@available(*, unavailable)
extension AudioFileWriter: Sendable {}
