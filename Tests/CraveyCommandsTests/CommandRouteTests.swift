import CraveyMediaCommands
import CraveyTestSupport
import Testing
@testable import CraveyCommands

/// Which executable a command line goes to, decided in process from the typed list of media
/// commands (``MediaCommand``), without starting either.
@Suite("Routing a command line")
struct CommandRouteTests {
    func route(_ arguments: String...) -> CommandRoute { CommandRoute(arguments) }

    @Test("every media command that is always handed over goes to cravey-media, a global --library moved after its verb")
    func mediaVerbs() {
        for media in MediaCommand.allCases where media.handOff == .always {
            let routed = route("--library", "/l", media.verb, "x")
            #expect(routed.executable == .craveyMedia, "\(media.verb)")
            #expect(routed.arguments == [media.verb, "--library", "/l", "x"])
            #expect(!routed.mayHandOff)
        }
    }

    @Test("quickplay plays in cravey-media with an operand and lists in cravey without; record --toggle stops in cravey; waveform runs in cravey and may hand itself over")
    func rules() {
        #expect(route("quickplay", "2").executable == .craveyMedia)
        #expect(route("quickplay", "--library", "/l", "--json").executable == .cravey)
        #expect(route("quickplay", "--", "-2").executable == .craveyMedia)
        #expect(route("record", "--seconds", "3").executable == .craveyMedia)
        let toggle = route("record", "--toggle")
        #expect(toggle.executable == .cravey && toggle.mayHandOff)
        let waveform = route("waveform", "3f2a")
        #expect(waveform.executable == .cravey && waveform.mayHandOff)
    }

    @Test("library commands, help, typos and nothing at all stay in cravey, and none may hand itself over, a global --library moved after a subcommand's name; cravey alone on a terminal opens the home screen in cravey-media")
    func craveysOwn() {
        for arguments in [["list"], ["search", "x"], ["help", "record"], ["--help"], ["--version"], ["recrod"], [], ["--library", "/l"]] {
            let routed = CommandRoute(arguments)
            #expect(routed.executable == .cravey && routed.arguments == arguments && !routed.mayHandOff, "\(arguments)")
        }
        // A global --library goes after a subcommand's name (`remind add`), where its options are
        let subcommand = route("--library", "/l", "remind", "add", "18:30")
        #expect(subcommand.executable == .cravey && subcommand.arguments == ["remind", "add", "--library", "/l", "18:30"])
        #expect(route("--library", "/l", "remind", "--json").arguments == ["remind", "--library", "/l", "--json"])
        let home = CommandRoute(["--library", "/l"], opensHome: true)
        #expect(home.executable == .craveyMedia && home.arguments == ["home", "--library", "/l"])
    }

    @Test("the list names each verb once, and cravey's root lists every media command's definition")
    func listAndRoot() {
        let verbs = MediaCommand.allCases.map(\.verb)
        #expect(Set(verbs).count == verbs.count)
        #expect(verbs.allSatisfy { MediaCommand(verb: $0)?.verb == $0 })
        let root = Cravey.configuration.subcommands.map { $0._commandName }
        #expect(verbs.allSatisfy(root.contains), "\(root)")
    }
}

/// The media commands `cravey-media` runs, against cravey's list of them, and a command line
/// handed over, run in process (``Outcome``) as the two mains run it. (The hand-over between the
/// two executables themselves: the CLI's RoutingTests.)
@Suite("Routing by verb, in process", .temporaryFiles)
struct MediaRoutingTests {
    @Test("cravey-media runs exactly the media commands of cravey's list (MediaCommand), in its order, and its help lists them so")
    func mediaCommandsMatchTheList() {
        let verbs = MediaCommand.allCases.map(\.verb)
        #expect(CraveyMedia.configuration.subcommands.map { $0._commandName } == verbs)
        let help = CraveyMedia.helpMessage(columns: 100)
        let section = help.components(separatedBy: "SUBCOMMANDS:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let listed = section.split(separator: "\n").compactMap { line in
            line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
        }
        #expect(listed == verbs, "\(help)")
    }

    @Test("quickplay with a number plays in cravey-media: with an empty library it says how to record the first clip (exit 66)")
    func quickPlayNumberOnEmptyLibrary() async throws {
        // Given an empty library
        let library = temporaryLibrary().path

        // When asking Quick Play to play its second clip
        let play = try await Outcome.of(["--library", library, "quickplay", "2"])

        // Then cravey-media answers, as a missing clip, not as unexpected arguments
        #expect(play.status == 66, "\(play.error)")
        #expect(play.error.contains("cravey record") && !play.error.contains("unexpected"), "\(play.error)")
    }

    @Test("`cravey record --help` is answered by cravey-media with the same help")
    func mediaHelp() async throws {
        // When asking a media command for help through cravey
        let viaMedia = try await Outcome.of(["record", "--help"])
        let viaCravey = try await Outcome.of(["help", "record"])

        // Then cravey-media shows the same text cravey shows
        #expect(viaMedia.status == 0 && viaMedia.output.contains("USAGE: cravey record"))
        #expect(viaMedia.output == viaCravey.output)
    }

    @Test("a global --library before a media verb reaches the media command")
    func libraryBeforeMediaVerb() async throws {
        // Given a library folder, and the test's sound server for `devices`
        let library = temporaryLibrary().path
        _ = TestSoundServer.address

        // When the option comes before `devices` and `doctor`
        let devices = try await Outcome.of(["--library", library, "devices", "--json"])
        let doctor = try await Outcome.of(["--library=\(library)", "doctor"])

        // Then both run
        #expect(devices.status == 0, "\(devices.error)")
        #expect(doctor.status == 0 && doctor.output.contains("healthy"), "\(doctor.error)")
    }
}
