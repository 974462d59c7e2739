/// The apps that call Melon, each an OAuth client id: a session is started for one of them and its
/// access tokens name it (`client_id`, RFC 9068), services see it as the `app` claim, agreements and
/// push topics are per app. Nebula (the disappearing chat the seeds split from the tax helper) has no
/// id of its own yet: it signs in as `melon`; giving it one is a case here and an APNs topic.
public enum ClientApp: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
    /// The student tax helper (Form 1040 or 1040-NR and 8843) and its private chat.
    case melon
    /// The Irish PAYE refund estimator.
    case refunds
    /// The roommates' household app.
    case household
    /// The closed university marketplace.
    case marketplace
    /// The fundraising app with karma points.
    case fundraising
}
