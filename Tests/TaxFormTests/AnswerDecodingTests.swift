import Foundation
import TaxFormContract
import Testing

/// An answer is decoded by its JSON kind, once: nothing is tried twice, a problem deep inside names
/// its own path, and nesting deeper than any answer is refused before it is read.
@Suite(.timeLimit(.minutes(1))) struct AnswerDecodingTests {
    static func decode(_ json: String) throws -> TaxForm.Answers {
        try JSONDecoder().decode(TaxForm.Answers.self, from: Data(json.utf8))
    }

    @Test func eachKindDecodesAsItself() throws {
        let answers = try Self.decode(#"{"a":true,"b":12,"c":"text","d":[1,"x"],"e":{"f":[false]}}"#)
        #expect(answers == [
            "a": .bool(true), "b": .integer(12), "c": .text("text"), "d": .list([.integer(1), .text("x")]),
            "e": .object(["f": .list([.bool(false)])]),
        ])
    }

    @Test func aProblemInsideNamesItsPath() throws {
        do {
            _ = try Self.decode(#"{"w":[{"box12":[{"amountCents":1.5}]}]}"#)
            Issue.record("a fraction decoded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["w", "0", "box12", "0", "amountCents"])
        }
    }

    /// Five answers nested 500 deep (a 5 KB body) cost a second of CPU when each level tried every
    /// kind; they are refused at the answer's bound now.
    @Test func nestingDeeperThanAnyAnswerIsRefused() throws {
        let deep = String(repeating: "[", count: 500) + "true" + String(repeating: "]", count: 500)
        let body = "{" + (0..<5).map { #""q\#($0)":\#(deep)"# }.joined(separator: ",") + "}"
        #expect(throws: DecodingError.self) { try Self.decode(body) }
        let deepest = String(repeating: "[", count: TaxForm.Answer.schemaBounds.depth - 1) + "1" + String(repeating: "]", count: TaxForm.Answer.schemaBounds.depth - 1)
        #expect(try Self.decode(#"{"q":\#(deepest)}"#)["q"] != nil, "an answer as deep as the bound decodes")
    }
}
