import ArgumentParser
import CraveyCore

/// A time into a clip as an option's value (`--from 1:02.5`, `--start`, `--end`): parsed by
/// ``ClipTime/init(argument:)``, completed as any word.
extension ClipTime: ExpressibleByArgument {
    package static var defaultCompletionKind: CompletionKind { .default }
}
