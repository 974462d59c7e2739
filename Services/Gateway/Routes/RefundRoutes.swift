import Contracts
import Envelope

/// The refund-calculator service's routes: estimates, rules and help for anyone; saved scenarios for
/// signed-in users; contact requests to the refund company.
enum RefundRoutes {
    /// Euro cents: whole, not negative, at most 100,000,000.00.
    static let cents: JSONValue = ["type": "integer", "minimum": 0, "maximum": 10_000_000_000, "description": "euro cents"]
    static let date: JSONValue = ["type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "YYYY-MM-DD"]
    static let profession: JSONValue = [
        "type": "string", "maxLength": 64, "description": "a flat-rate expenses class; GET /v1/refunds/help lists them (nurse, teacher, ..., none)",
    ]
    /// Names people type: the same rule as display names.
    static let name = AuthRoutes.displayName

    /// Every answer optional: a partial scenario already gives an estimate.
    static let scenario: JSONValue = [
        "type": "object",
        "properties": [
            "taxYear": ["type": "integer", "description": "in the refund window (GET /v1/refunds/rules); last year when left out"],
            "status": ["type": "string", "enum": .array(RefundCalculator.Status.allCases.map { .string($0.rawValue) })],
            "dateOfBirth": date,
            "dependentChildren": ["type": "integer", "minimum": 0, "maximum": 20],
            "salaryCents": cents, "taxPaidCents": cents, "profession": profession,
            "tradeUnionMember": ["type": "boolean"], "otherIncomeCents": cents,
            "spouse": [
                "type": "object", "description": "counts for a jointly assessed couple with two incomes",
                "properties": ["incomeCents": cents, "taxPaidCents": cents, "dateOfBirth": date, "profession": profession],
            ],
            "home": [
                "type": "object",
                "properties": ["rentPaidCents": cents, "hasMortgage": ["type": "boolean"], "serviceChargesCents": cents],
            ],
            "expenses": [
                "type": "object",
                "properties": [
                    "medicalCents": cents, "nursingHomeCents": cents, "otherEmploymentCents": cents,
                    "tuition": [
                        "type": "object", "required": ["feesCents", "fullTime"],
                        "properties": ["feesCents": cents, "fullTime": ["type": "boolean"]],
                    ],
                ],
            ],
        ],
    ]

    static let estimate: JSONValue = [
        "type": "object", "required": ["taxYear", "rulesVersion", "currency", "refundCents", "taxDueCents", "uscCents", "lines", "warnings", "missing"],
        "properties": [
            "taxYear": ["type": "integer"], "rulesVersion": ["type": "string"], "currency": ["type": "string", "enum": ["EUR"]],
            "refundCents": ["type": "integer", "description": "tax paid less tax due: positive is a refund, negative an underpayment"],
            "taxDueCents": ["type": "integer"], "uscCents": ["type": "integer", "description": "Universal Social Charge, not part of the refund"],
            "lines": [
                "type": "array",
                "items": [
                    "type": "object", "required": ["kind", "label", "amountCents", "rule"],
                    "properties": [
                        "kind": ["type": "string", "enum": ["income", "deduction", "band", "gross-tax", "credit", "tax-due", "tax-paid", "usc"]],
                        "label": ["type": "string"], "amountCents": ["type": "integer"],
                        "rule": ["type": "string", "description": "the rule and source the figure comes from"],
                    ],
                ],
            ],
            "warnings": [
                "type": "array", "description": "answers that add nothing, and why",
                "items": ["type": "object", "required": ["field", "message"], "properties": ["field": ["type": "string"], "message": ["type": "string"]]],
            ],
            "missing": ["type": "array", "items": ["type": "string"], "description": "answers not given that would change the estimate"],
        ],
    ]

    static let saved: JSONValue = [
        "type": "object", "required": ["id", "name", "scenario", "createdAt", "updatedAt"],
        "properties": [
            "id": ["type": "string"], "name": ["type": "string"], "scenario": scenario,
            "estimate": estimate, "problem": ["type": "string", "description": "why there is no estimate under today's rules"],
            "createdAt": ["type": "string", "format": "date-time"], "updatedAt": ["type": "string", "format": "date-time"],
        ],
    ]
    static let id = BusRoute.Parameter("id", in: .path, description: "the scenario id", length: 36...36)
    static let named: JSONValue = ["type": "object", "required": ["name", "scenario"], "properties": ["name": name, "scenario": scenario]]

    static let all: [BusRoute] = [
        BusRoute(
            .post, "/v1/refunds/estimate", to: RefundCalculator.EstimateMake.self,
            summary: "The refund (or underpayment) for the answers so far, line by line with the rule behind each figure; no account needed",
            requestBody: scenario, response: estimate),
        BusRoute(
            .get, "/v1/refunds/rules", to: RefundCalculator.RulesVersion.self,
            summary: "The rules version (changes with any figure or help text) and the tax years an estimate may be for",
            response: [
                "type": "object", "required": ["version", "taxYears", "defaultTaxYear"],
                "properties": [
                    "version": ["type": "string"], "taxYears": ["type": "array", "items": ["type": "integer"]], "defaultTaxYear": ["type": "integer"],
                ],
            ]),
        BusRoute(
            .get, "/v1/refunds/help", to: RefundCalculator.HelpGet.self,
            summary: "Help for every answer, with the tax year's figures, and the choices of status and profession",
            parameters: [.init("taxYear", in: .query, .integer, description: "the default tax year when left out", range: 1900...2100)],
            response: [
                "type": "object", "required": ["taxYear", "rulesVersion", "answers"],
                "properties": [
                    "taxYear": ["type": "integer"], "rulesVersion": ["type": "string"],
                    "answers": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["field", "label", "help"],
                            "properties": [
                                "field": ["type": "string"], "label": ["type": "string"], "help": ["type": "string"],
                                "options": [
                                    "type": "array",
                                    "items": ["type": "object", "required": ["value", "label"], "properties": ["value": ["type": "string"], "label": ["type": "string"]]],
                                ],
                            ],
                        ],
                    ],
                ],
            ]),
        BusRoute(
            .post, "/v1/refunds/scenarios", to: RefundCalculator.Scenarios.Save.self,
            summary: "Saves the answers under a name for the caller (at most REFUND_SCENARIOS_PER_ACCOUNT, 100)", access: .signedIn,
            requestBody: named, response: saved, successStatus: .created, errors: [.conflict]),
        BusRoute(
            .get, "/v1/refunds/scenarios", to: RefundCalculator.Scenarios.List.self,
            summary: "The caller's saved scenarios, newest first (without estimates)", access: .signedIn,
            parameters: [
                .init("limit", in: .query, .integer, description: "scenarios per page, 20 when left out", range: 1...100),
                .init("before", in: .query, .integer, description: "the previous page's nextBefore", range: 1...Int64.max),
            ],
            response: [
                "type": "object", "required": ["scenarios"],
                "properties": [
                    "scenarios": ["type": "array", "items": saved],
                    "nextBefore": ["type": "integer", "description": "pass as before for the next page; absent on the last page"],
                ],
            ]),
        BusRoute(
            .get, "/v1/refunds/scenarios/{id}", to: RefundCalculator.Scenarios.Get.self,
            summary: "One of the caller's scenarios with its estimate under today's rules", access: .signedIn, parameters: [id], response: saved),
        BusRoute(
            .put, "/v1/refunds/scenarios/{id}", to: RefundCalculator.Scenarios.Update.self,
            summary: "Replaces the name and answers of one of the caller's scenarios", access: .signedIn, parameters: [id],
            requestBody: named, response: saved),
        BusRoute(
            .delete, "/v1/refunds/scenarios/{id}", to: RefundCalculator.Scenarios.Delete.self,
            summary: "Deletes one of the caller's scenarios", access: .signedIn, parameters: [id],
            response: ["type": "object", "required": ["deleted"], "properties": ["deleted": ["type": "boolean"]]]),
        BusRoute(
            .post, "/v1/refunds/contact-requests", to: RefundCalculator.Contact.Create.self,
            summary: "Asks the refund company to call about the answers: mailed to the company, confirmed to the user; 3 a day per address",
            requestBody: [
                "type": "object", "required": ["name", "email", "phone", "preferredTime", "scenario"],
                "properties": [
                    "name": name, "email": AuthRoutes.email,
                    "phone": ["type": "string", "maxLength": 30, "pattern": "^\\+?[0-9 ().-]+$", "description": "7 to 15 digits"],
                    "preferredTime": ["type": "string", "enum": .array(RefundCalculator.Contact.PreferredTime.allCases.map { .string($0.rawValue) })],
                    "scenario": scenario,
                ],
            ],
            response: [
                "type": "object", "required": ["id", "status", "estimate"],
                "properties": ["id": ["type": "string"], "status": ["type": "string", "enum": ["received"]], "estimate": estimate],
            ],
            successStatus: .accepted, errors: [.rateLimited]),
    ]
}
