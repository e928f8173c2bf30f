internal import CFFmpeg

/// An owned `AVPacket`: compressed data travelling between demuxer, decoder, encoder and muxer.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// The corresponding C function is `av_packet_alloc`.
    init() throws(FFmpegError) {
        guard let pointer = av_packet_alloc() else { throw FFmpegError.outOfMemory }
        self.pointer = pointer
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&pointer)
    }

    var streamIndex: Int32 {
        get { pointer.pointee.stream_index }
        set { pointer.pointee.stream_index = newValue }
    }

    /// Drops the payload so the packet can be reused. The corresponding C function is `av_packet_unref`.
    func unref() { av_packet_unref(pointer) }
}

@available(*, unavailable)
extension Packet: Sendable {}
