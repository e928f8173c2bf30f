import Foundation

/// Turns SIGINT, SIGTERM and SIGHUP (the terminal window closed) into a clean stop instead of
/// killing the process: a recording is saved with its title, a play is counted, an import is
/// removed, as Ctrl-C does.
final class StopOnSignals: OnSignals {
    init(_ stop: @escaping @Sendable () -> Void) {
        super.init([SIGINT, SIGTERM, SIGHUP], stop)
    }
}
