extension BinaryInteger {
    /// The number as people write limits: `65,536`, `-1,000`, `100`. Messages and help text use it.
    public var grouped: String {
        let digits = String(magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (self < 0 ? "-" : "") + text
    }
}
