import Testing
@testable import CraveyCommands
import CraveyCore

@Suite("A time into a clip, as typed and as written")
struct ClipTimeTests {
    @Test("the forms the help names are taken; a sign, an exponent, inf and nan are not",
          arguments: [("7", 7.0), ("12.25", 12.25), ("1:02.5", 62.5), ("2:03:04", 7384.0), ("000:59", 59.0)])
    func parses(typed: String, seconds: Double) {
        #expect(ClipTime(argument: typed)?.seconds == seconds)
    }

    @Test("what is not a time is refused", arguments: ["-3", "1e3", "inf", "nan", "0x10", "1:60", "1:60:00", " 5", "5 ", ":5", "1::5", ""])
    func refuses(typed: String) {
        #expect(ClipTime(argument: typed) == nil)
    }

    @Test("a time of any length a person can type is written without trapping: one far past any clip in seconds",
          arguments: ["31415926535897932384626", "9223372036854775.808", "4000000000000000", "999999999999:00:00"])
    func writesAnyTypedTime(typed: String) throws {
        let time = try #require(ClipTime(argument: typed))
        let text = ClipTime.text(time.seconds)
        #expect(text.hasSuffix(" s"), "\(text)")
        #expect(text.allSatisfy { $0.isNumber || $0 == " " || $0 == "s" }, "\(text)")
    }

    @Test("a time within a billion hours is written to the millisecond",
          arguments: [(0.0, "0:00.000"), (4.1504, "0:04.150"), (750, "12:30.000"), (3723.25, "1:02:03.250"), (-2, "0:00.000"),
                      (3_599_999_999_999.999, "999999999:59:59.999"), (3_600_000_000_000, "3600000000000 s")])
    func writes(seconds: Double, text: String) {
        #expect(ClipTime.text(seconds) == text)
    }
}
