@testable import MarketplaceChatService
import Testing

/// The warning flag of listing conversations: phone numbers and email addresses, however written.
@Suite(.timeLimit(.minutes(1))) struct ContactScanTests {
    @Test(arguments: [
        "ring me 087 123 4567", "+353 (87) 123-4567", "0871234567", "01 234 5678", "mail me: aoife.b@gmail.com", "aoife @ tcd . ie",
        "aoife at gmail dot com", "aoife (at) gmail (dot) com",
    ])
    func contactDetailsAreFlagged(_ text: String) {
        #expect(ContactScan.looksLikeContact(text))
    }

    @Test(arguments: [
        "25.00 is fine", "collect on 2026-11-27 at 14:30", "room 3.14, block 12", "meet at the arts block", "I'm at home, done by 5",
        "calculus 8th edition, 1200 pages", "Could collect Friday 👨‍👩‍👧",
    ])
    func ordinaryMessagesAreNot(_ text: String) {
        #expect(!ContactScan.looksLikeContact(text))
    }
}
