import Envelope
import Foundation
import Testing
import TestSupport

extension HouseholdStackTests {
/// Issue 59 items 14 and 15: what a refusal says, through the gateway as a client reads it. A field
/// is named one way in `fields[].field` and in `detail` (as the client sent it, without the
/// envelope's `data.`), and each message says what is wrong: an amount too large is out of range,
/// not a fraction; a date that is no date says the format, not a length; a body that is not UTF-8
/// says so.
@Suite(.timeLimit(.minutes(2))) struct ProblemWordingTests {
    let roommates = Roommates()

    static func detail(_ reply: HTTPTestClient.Reply) -> String {
        if case .string(let text)? = reply.json?["detail"] { text } else { "" }
    }

    static func fields(_ reply: HTTPTestClient.Reply) -> [String: String] {
        guard case .array(let fields)? = reply.json?["fields"] else { return [:] }
        var named: [String: String] = [:]
        for field in fields {
            if case .string(let name)? = field["field"], case .string(let message)? = field["message"] { named[name] = message }
        }
        return named
    }

    @Test func aRefusalNamesItsFieldOneWayAndSaysWhatIsWrong() async throws {
        try await InProcessStack.with([.household]) { http in
            let flat = try await roommates.flat(http)
            let base = "/v1/households/\(flat.id)"

            let huge = try await http.post("\(base)/bills", json: #"{"title":"Rent","amount":{"minorUnits":100000000000000000000,"currency":"EUR"}}"#, headers: flat.ana)
            #expect(huge.status == 400 && Self.fields(huge)["amount.minorUnits"]?.hasPrefix("must be from") == true, "\(huge.text)")
            #expect(!Self.detail(huge).contains("data.") && Self.detail(huge).contains("amount.minorUnits"), "\(huge.text)")

            // A refusal made by the service, not the schema, names its field the same way.
            let nobody = try await http.post(
                "\(base)/bills", json: #"{"title":"Rent","amount":{"minorUnits":1000,"currency":"EUR"},"paidBy":"\#(UUID())"}"#, headers: flat.ana)
            #expect(nobody.status == 400 && Self.fields(nobody).keys.contains("paidBy"), "\(nobody.text)")
            #expect(!Self.detail(nobody).contains("data.") && Self.detail(nobody).contains("paidBy"), "\(nobody.text)")

            let tomorrow = try await http.post(
                "\(base)/chores", json: #"{"title":"Bins out","frequency":"weekly","weekdays":[3],"timeZone":"Europe/Dublin","dueAt":"tomorrow"}"#,
                headers: flat.ana)
            #expect(tomorrow.status == 400 && Self.fields(tomorrow)["dueAt"]?.contains("RFC 3339") == true, "\(tomorrow.text)")

            let latin1 = try await http.send("POST", "\(base)/bills", body: Array(#"{"title":"Caf"#.utf8) + [0xE9] + Array(#"","amount":{"minorUnits":1000,"currency":"EUR"}}"#.utf8),
                                             headers: flat.ana)
            #expect(latin1.status == 400 && Self.detail(latin1).contains("not UTF-8") && Self.fields(latin1)["body"] != nil, "\(latin1.text)")
        }
    }
}
}
