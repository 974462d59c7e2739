import Testing
@testable import Envelope

@Suite(.timeLimit(.minutes(2))) struct JSONPeekTests {
    private func peek(_ json: String, _ keys: [StaticString] = ["id", "type"]) -> [String?]? {
        JSONPeek.strings(keys, in: Array(json.utf8))
    }

    @Test func readsTopLevelStringsWhereverTheyAre() {
        #expect(peek(#"{"id":"a","type":"t"}"#)! == ["a", "t"])
        #expect(peek(#"{"data":{"id":"inner","list":[1,{"type":"x"}]},"type":"t","id":"outer"}"#)! == ["outer", "t"])
        #expect(peek(#" { "id" : "a" , "n" : -1.5e3 , "b" : true , "z" : null } "#)! == ["a", nil])
    }

    @Test func ignoresNonStringValuesAndMissingKeys() {
        #expect(peek(#"{"id":42,"other":"x"}"#)! == [nil, nil])
        #expect(peek("{}")! == [nil, nil])
    }

    @Test func unescapesValues() {
        #expect(peek(#"{"id":"a\"b\\c\/d\n\u00e9\ud83c\udf49"}"#, ["id"])! == ["a\"b\\c/d\né🍉"])
    }

    @Test func skipsBracketsInsideStrings() {
        #expect(peek(#"{"data":{"s":"}]{[\"","t":"]"},"id":"ok"}"#, ["id"])! == ["ok"])
    }

    @Test(arguments: ["", "null", "[1,2]", "\"id\"", "{\"id\"", "{\"id\":\"unterminated", "{\"id\" \"x\"}", "{id:\"x\"}", "{\"a\":1 \"id\":\"x\"}"])
    func refusesWhatIsNotAnObject(_ json: String) {
        #expect(peek(json) == nil)
    }

    @Test func neverCrashesOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]":,\ abcidtype0123"#.utf8)
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            _ = JSONPeek.strings(["id", "type"], in: bytes)
        }
    }
}
