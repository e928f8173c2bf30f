import Foundation

/// Turns SIGINT (Ctrl-C), SIGTERM, SIGHUP (the terminal window closed) and SIGQUIT (Ctrl-\) into
/// a clean stop instead of ending the process (SIGQUIT with a core dump): a recording is saved
/// with its title, a play is counted, an import is removed, as Ctrl-C does.
package final class StopOnSignals: OnSignals {
    package init(_ stop: @escaping @Sendable () -> Void) {
        super.init([SIGINT, SIGTERM, SIGHUP, SIGQUIT], stop)
    }
}
