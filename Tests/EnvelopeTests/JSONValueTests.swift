import Foundation
import Testing
@testable import Envelope

@Suite(.timeLimit(.minutes(2))) struct JSONValueTests {
    @Test func parsesWhatJSONDecoderReadsToTheSameValue() throws {
        let documents = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e"},"f":-0.5e-3,"g":1E+2,"h":""}"#,
            #"  [ 1 , "x\n\"\\\/\b\f\r\t\u00e9\ud83c\udf49" , [] , {} ]  "#,
            #""naïve – 🍉""#,
            "12345678901234567890",
            #"{"dup":1,"dup":2}"#,
        ]
        for document in documents {
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(document.utf8))
            #expect(try JSONValue.parse(Array(document.utf8)) == expected, "\(document)")
        }
    }

    /// The gateway checks a body's JSONValue and the worker decodes the same bytes into its types: with
    /// a key given twice, both must see the same one.
    @Test func aDuplicateKeyReadsAsAServicesDecoderReadsIt() throws {
        struct Nested: Decodable { let inner: Inner }
        struct Inner: Decodable { let dup: Int }
        let document = Array(#"{"inner":{"dup":1,"dup":2}}"#.utf8)
        let decoded = try JSONDecoder().decode(Nested.self, from: Data(document))
        guard case .object(let outer) = try JSONValue.parse(document), case .object(let inner)? = outer["inner"] else {
            Issue.record("not an object")
            return
        }
        #expect(inner["dup"] == .number(Double(decoded.inner.dup)))
    }

    @Test func refusesWhatIsNotOneValidValue() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let documents: [[UInt8]] = [
            Array("".utf8), Array("{".utf8), Array("[1,]".utf8), Array("{\"a\":1}x".utf8), Array("01".utf8), Array("1e999".utf8),
            Array("\"\u{01}\"".utf8), Array(#""\x""#.utf8), Array("tru".utf8), Array(deep.utf8),
            [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")],  // not UTF-8
        ]
        for document in documents {
            #expect(throws: JSONValueError.self, "\(String(decoding: document, as: UTF8.self))") { try JSONValue.parse(document) }
        }
    }
}
