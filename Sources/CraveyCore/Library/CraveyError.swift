/// An error meant for a person: what happened, to which file or device, and what to do.
/// Its ``Kind`` decides the command-line tool's exit code; tests match on the kind, not the text.
public struct CraveyError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Bad usage or invalid input (exit 64).
        case invalidInput
        /// A file that is not media FFmpeg can decode (exit 65).
        case undecodableMedia
        /// An unknown id or a missing file (exit 66).
        case notFound
        /// No sound server, device or camera (exit 69).
        case unavailable
        /// Cannot write: disk full, permissions (exit 73).
        case cannotWrite
        /// Anything else (exit 1).
        case other
    }

    public var kind: Kind
    public var message: String
    /// The error underneath, when there is one: a `DatabaseError`, an `Errno`, an FFmpeg error.
    public var underlying: (any Error & Sendable)?

    public init(_ kind: Kind, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    public var description: String { message }
}
