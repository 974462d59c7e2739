import Envelope
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
    /// kind and swallowed the failure below; read by kind, each level is read once, and the value
    /// comes out whole (the interview's check then refuses it by its question's kind).
    @Test func deepNestingIsReadOnceLevelByLevel() throws {
        let deep = String(repeating: "[", count: 500) + "true" + String(repeating: "]", count: 500)
        let body = "{" + (0..<5).map { #""q\#($0)":\#(deep)"# }.joined(separator: ",") + "}"
        var value = try #require(try Self.decode(body)["q0"]), depth = 1
        while case .list(let items) = value, let first = items.first {
            value = first
            depth += 1
        }
        #expect(depth == 501 && value == .bool(true))
    }
}

/// What a client sees for an amount that is not whole cents (19.99 x 100 in floating point).
@Suite(.timeLimit(.minutes(1))) struct FractionalCentsTests {
    @Test func aFractionalAmountNamesItsMemberAndSaysWholeCents() throws {
        let body = #"{"taxYear":2024,"version":1,"answers":{"income.w2s":[{"employerName":"Lab","wagesCents":1998.9999999999998}]}}"#
        do {
            _ = try EnvelopeCodec().decode(TaxForm.Interviews.Answer.Request.self, from: Array(body.utf8))
            Issue.record("a fraction of a cent decoded")
        } catch {
            #expect(error.fields.map(\.field) == ["answers.income.w2s[0].wagesCents"], "\(error)")
            #expect(error.fields.first?.message.contains("whole cents") == true, "\(error)")
        }
    }
}
