import Foundation

/// Encodes a recording into a fragmented MP4 that stays playable on disk at every moment
/// (half-second fragments, flushed as written: a crash loses at most the last half second):
/// signed 16-bit PCM to AAC, and for a video, yuv420p pictures to H.264.
///
/// Lives on the recording's encoder thread; nothing else touches it. Dropped without `finish()`,
/// it gives the file up as it stands (what was written stays, playable).
final class RecordingFileWriter {
    /// `.m4a` for an audio recording, `.mp4` for a video.
    let container: Container
    private let file: MediaFile
    private let muxer: Muxer
    private let audio: AACEncoderStage
    private let video: H264EncoderStage?
    /// Where what is written is measured for the waveform, and held for its words.
    private let control: RecordingControl
    /// What is written, at the transcriber's rate and in one channel (``RecordingControl/sound``);
    /// nil when no sound is held (``RecordingOptions/holdsSound``) or it could not be made (the
    /// words are heard from the file then).
    private let speech: Resampler?

    /// The muxer options that make an MP4 fragmented and playable while it is written.
    static let fragmentedHeader = [
        "movflags": "+frag_keyframe+empty_moov+default_base_moof",
        "frag_duration": "500000",
    ]

    /// Creates the `.partial` file of recording `id` in `storage` (an `.m4a`, or an `.mp4` when
    /// `options` name a camera: yuv420p pictures of their size at their constant rate), opens
    /// the encoders and writes the header of a fragmented MP4; on failure no file is left behind.
    /// A file that cannot be created throws `Errno`.
    init(partialOf id: RecordingID, in store: LibraryStore, options: RecordingOptions, measuring control: RecordingControl) throws {
        self.control = control
        speech = options.holdsSound ? try? Resampler(from: .signed16(sampleRate: options.sampleRate, channels: options.channels),
                                                     to: .floatInterleaved(sampleRate: SpeechAudio.sampleRate, channels: 1)) : nil
        if speech == nil { control.sound.drop() }
        let type: RecordingType = options.camera == nil ? .audio : .video
        let (sampleRate, channels) = (options.sampleRate, options.channels)
        container = Container(for: type)
        let file = try store.create(ClipFiles(id: id, type: type).media(.recording))
        do {
            let muxer = try Muxer(writingTo: file, format: container.formatName)
            do {
                video = type == .audio ? nil : try H264EncoderStage(
                    width: Int32(options.width), height: Int32(options.height), frameRate: Int32(options.frameRate), into: muxer)
                let resampler = try Resampler(from: .signed16(sampleRate: sampleRate, channels: channels),
                                              to: .floatPlanar(sampleRate: sampleRate, channels: channels))
                audio = try AACEncoderStage(muxer: muxer, resampler: resampler, bitRate: options.bitRate, primingAtZero: type == .video)
                muxer.flushEveryPacket()
                try muxer.writeHeader(options: Self.fragmentedHeader)
            } catch {
                muxer.abandon()
                throw error
            }
            self.muxer = muxer
        } catch {
            store.discard(file)
            throw error
        }
        self.file = file
    }

    deinit {
        muxer.abandon()  // does nothing once finish() closed it
    }

    /// Samples of encoder delay in front of the audio, hidden by an edit list after a rewrite.
    var primingSamples: Int64 { audio.primingSamples }

    /// Appends interleaved samples and writes every whole encoder frame they complete; they go
    /// to the recording's waveform and its held sound too.
    func append(_ samples: [Int16]) throws {
        try audio.push(interleaved: samples)
        control.record(samples)
        hold { try $0.interleavedFloats(fromInterleaved: samples) }
    }

    /// Adds what `convert` makes of the samples written to the held sound, or lets it go when it fails.
    private func hold(_ convert: (Resampler) throws -> [Float]) {
        guard let speech else { return }
        do {
            control.sound.append(try convert(speech))
        } catch {
            control.sound.drop()
        }
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
        hold { try $0.interleavedFloats(from: nil) }
        control.sound.finish()
    }
}

@available(*, unavailable)
extension RecordingFileWriter: Sendable {}
