extension Demuxer {
    /// Reads the input's packets in file order, from where it stands to its end or until a
    /// callback says `.stop`: the one demux/decode loop remux, transcode, probe and thumbnail use.
    ///
    /// Each packet goes to `packets` first (which may change it only if no decoder reads its
    /// stream). A packet of a stream that one of `decoders` reads is then decoded, every frame
    /// going to `frames` (damaged packets skipped, a full decoder emptied and the packet sent
    /// again); at the end of the input every decoder is drained the same way, in order.
    /// Returns `.stop` when a callback stopped the walk, `.next` when the input ran out.
    @discardableResult
    func walk(decoding decoders: [Decoder] = [],
              packets: (Packet) throws(FFmpegError) -> WalkStep = { _ in .next },
              frames: (Decoder, Frame) throws(FFmpegError) -> WalkStep = { _, _ in .next }) throws(FFmpegError) -> WalkStep {
        let packet = try Packet()
        let frame = try Frame()
        while try read(into: packet) {
            defer { packet.unref() }
            if try packets(packet) == .stop { return .stop }
            guard let decoder = decoders.first(where: { $0.streamIndex == packet.streamIndex }) else { continue }
            if try decoder.decode(packet, into: frame, { (frame) throws(FFmpegError) in try frames(decoder, frame) }) == .stop {
                return .stop
            }
        }
        for decoder in decoders {
            if try decoder.decode(nil, into: frame, { (frame) throws(FFmpegError) in try frames(decoder, frame) }) == .stop {
                return .stop
            }
        }
        return .next
    }
}
