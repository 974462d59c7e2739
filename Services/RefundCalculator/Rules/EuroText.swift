import RefundCalculatorContract
import Contracts
import Foundation

/// Euro amounts and rates as people read them: `€42,000`, `€1,234.50`, `-€12.00`, `20%`, `4.50%`.
public enum EuroText {
    /// A rate in basis points: 2000 is `20%`, 450 is `4.50%`.
    public static func percent(basisPoints: Int) -> String {
        basisPoints % 100 == 0 ? "\(basisPoints / 100)%" : "\(basisPoints / 100).\(String(format: "%02d", basisPoints % 100))%"
    }

    public static func format(cents: Int64) -> String {
        let sign = cents < 0 ? "-" : "", magnitude = cents.magnitude
        let digits = String(magnitude / 100)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        let part = magnitude % 100
        return part == 0 ? "\(sign)€\(grouped)" : "\(sign)€\(grouped).\(part < 10 ? "0" : "")\(part)"
    }
}
