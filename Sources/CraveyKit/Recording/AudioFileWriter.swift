import Foundation
internal import CFFmpeg

/// Encodes signed 16-bit PCM to AAC and muxes it into a fragmented MP4 that stays playable on
/// disk at every moment: libswresample -> FIFO of encoder frames -> libavcodec `aac` -> libavformat.
///
/// Lives on the recording's encoder thread; nothing else touches it.
final class AudioFileWriter {
    private let input: AudioFormat
    private let resampler: Resampler
    private let encoder: Encoder
    private let fifo: AudioFIFO
    private let muxer: Muxer
    private let streamIndex: Int32
    private let converted: Frame
    private let frame: Frame
    private let packet: Packet
    private var encodedSamples: Int64 = 0

    /// Opens the encoder and writes the header of a fragmented MP4 (1 s fragments, flushed after
    /// every packet) at `url`.
    init(url: URL, sampleRate: Int, channels: Int, bitRate: Int, format: String = "ipod") throws(FFmpegError) {
        input = AudioFormat(sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: Int32(sampleRate), channels: Int32(channels))
        let output = AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: Int32(sampleRate), channels: Int32(channels))
        muxer = try Muxer(url: url, format: format)
        encoder = try Encoder(audioCodec: "aac", sampleRate: output.sampleRate, channels: output.channels,
                              bitRate: bitRate, globalHeader: muxer.wantsGlobalHeader)
        resampler = try Resampler(from: input, to: output)
        fifo = try AudioFIFO(format: output, capacity: encoder.frameSize * 8)
        streamIndex = try muxer.addStream(for: encoder)
        converted = try Frame()
        frame = try Frame()
        packet = try Packet()
        muxer.flushEveryPacket()
        try muxer.writeHeader(options: [
            "movflags": "+frag_keyframe+empty_moov+default_base_moof",
            "frag_duration": "1000000",
        ])
    }

    /// Samples of encoder delay in front of the audio (1024 for AAC), which players skip when the
    /// container has an edit list.
    var primingSamples: Int64 { Int64(encoder.context.pointee.initial_padding) }

    /// Appends interleaved samples and writes every whole encoder frame they complete.
    func append(_ samples: [Int16]) throws {
        let count = samples.count / Int(input.channels)
        try convert(count: count) { out, capacity in
            try samples.withUnsafeBytes { raw in
                var plane: UnsafePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return try withUnsafePointer(to: &plane) { planes in
                    try resampler.convert(planes, count: count, into: out, capacity: capacity)
                }
            }
        }
        try encodeWholeFrames(flushing: false)
    }

    /// Drains the resampler and encoder and writes the trailer. The file is complete afterwards.
    func finish() throws {
        try convert(count: 0) { out, capacity in
            try resampler.convert(nil, count: 0, into: out, capacity: capacity)
        }
        try encodeWholeFrames(flushing: true)
        _ = try encoder.send(nil)
        try writePackets()
        try muxer.close()
    }

    private func convert(count: Int,
                         _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>, Int) throws -> Int) throws {
        let capacity = resampler.outputCapacity(forInput: count)
        guard capacity > 0 else { return }
        let output = fifo.format
        try converted.allocateAudio(samples: capacity, format: output.sampleFormat,
                                    sampleRate: output.sampleRate, layout: output.layout)
        let planes = UnsafeRawPointer(converted.pointer.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        let written = try body(planes, capacity)
        if written > 0 { try fifo.write(converted, count: written) }
    }

    private func encodeWholeFrames(flushing: Bool) throws(FFmpegError) {
        let size = encoder.frameSize
        while fifo.count >= size || (flushing && fifo.count > 0) {
            try fifo.read(count: min(size, fifo.count), into: frame)
            frame.pts = encodedSamples
            encodedSamples += Int64(frame.sampleCount)
            while try encoder.send(frame) == .needsMore { try writePackets() }
            try writePackets()
        }
    }

    private func writePackets() throws(FFmpegError) {
        while try encoder.receive(into: packet) == .ready {
            packet.streamIndex = streamIndex
            try muxer.write(packet, timeBase: encoder.timeBase)
        }
    }
}

@available(*, unavailable)
extension AudioFileWriter: Sendable {}
