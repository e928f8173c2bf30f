import CraveyCommands
import CraveyCore
import Foundation

/// Replaces this process with `cravey-media`, found beside this executable
/// (``CommandRoute/mediaExecutable``), and `arguments`, a clip's words in them handed over out
/// of sight of `ps` (``HiddenArguments/handOver(_:)``). Returns only by exiting 1 when
/// `cravey-media` cannot be run.
///
/// The corresponding C function is `execv`.
func handOff(_ arguments: [String]) -> Never {
    let path = CommandRoute.mediaExecutable
    let argv = ([path] + HiddenArguments.handOver(arguments)).map { strdup($0) } + [nil]
    execv(path, argv)
    Terminal.diagnostic("cravey: cannot run \(path): \(String(cString: strerror(errno))). Media commands need cravey-media installed beside cravey.")
    exit(1)
}
