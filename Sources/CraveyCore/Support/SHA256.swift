/// SHA-256 (FIPS 180-4), fed in pieces: the checksums of a backup's files, which
/// `sha256sum` checks the same way.
package struct SHA256: Sendable {
    private var state: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    package init() {}

    /// Adds bytes.
    package mutating func update(_ bytes: some Collection<UInt8>) {
        length += UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        let whole = pending.count / 64 * 64
        guard whole > 0 else { return }
        pending.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: whole, by: 64) { compress(buffer[start..<start + 64]) }
        }
        pending.removeFirst(whole)
    }

    /// The digest as 64 lowercase hex digits, as `sha256sum` prints it.
    package func hexDigest() -> String {
        var final = self
        var tail: [UInt8] = [0x80] + [UInt8](repeating: 0, count: (119 - Int(length % 64)) % 64)
        tail += (0..<8).map { UInt8(truncatingIfNeeded: (length * 8) >> (56 - 8 * $0)) }
        final.update(tail)
        return final.state.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    private mutating func compress(_ block: Slice<UnsafeBufferPointer<UInt8>>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in compress(block, schedule: w) }
    }

    private mutating func compress(_ block: Slice<UnsafeBufferPointer<UInt8>>, schedule w: UnsafeMutableBufferPointer<UInt32>) {
        for index in 0..<16 {
            let base = block.startIndex + index * 4
            w[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16 | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
        }
        for index in 16..<64 {
            let s0 = w[index - 15].rotated(7) ^ w[index - 15].rotated(18) ^ (w[index - 15] >> 3)
            let s1 = w[index - 2].rotated(17) ^ w[index - 2].rotated(19) ^ (w[index - 2] >> 10)
            w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for index in 0..<64 {
            let t1 = h &+ (e.rotated(6) ^ e.rotated(11) ^ e.rotated(25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[index] &+ w[index]
            let t2 = (a.rotated(2) ^ a.rotated(13) ^ a.rotated(22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= value }
    }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}

private extension UInt32 {
    /// Rotated right by `count` bits.
    func rotated(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
