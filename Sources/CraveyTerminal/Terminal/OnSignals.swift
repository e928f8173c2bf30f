import Foundation

/// Runs an action when one of some signals arrives, instead of what the signal did before (end
/// the process, or nothing), until cancelled; ``handle(with:)`` changes the action.
///
/// The signal is caught by a handler (`sigaction`) in whichever thread the kernel delivers it to,
/// which only writes its number to a pipe; one thread of this process's own reads the pipe and
/// runs the action. A libdispatch signal source is no good here: it blocks the signal in the
/// thread that makes it only, and with the sound server's and the pipeline's threads already
/// running, a signal sent to the process could land in one of those and be ignored.
package class OnSignals {
    private let numbers: [Int32]

    package init(_ numbers: [Int32], _ action: @escaping @Sendable () -> Void) {
        self.numbers = numbers
        SignalPipe.shared.install(numbers, action)
    }

    /// From now on, runs `action` instead.
    package func handle(with action: @escaping @Sendable () -> Void) {
        SignalPipe.shared.install(numbers, action)
    }

    /// Back to what the signals did before: their default action, or being ignored.
    package func cancel() {
        SignalPipe.shared.remove(numbers)
    }
}
