/// The apps that call Melon, each an OAuth client id: a session is started for one of them and its
/// access tokens name it (`client_id`, RFC 9068), services see it as the `app` claim, agreements and
/// push topics are per app.
public enum ClientApp: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
    /// The student tax helper (Form 1040 or 1040-NR and 8843).
    case melon
    /// Nebula, the private chat whose messages disappear (any two signed-in users).
    case nebula
    /// The Irish PAYE refund estimator.
    case refunds
    /// The roommates' household app.
    case household
    /// The closed university marketplace.
    case marketplace
    /// The fundraising app with karma points.
    case fundraising
}
