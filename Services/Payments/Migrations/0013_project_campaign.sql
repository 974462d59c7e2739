-- The Melon project's own campaign, for its upkeep (Payments.projectCampaignId): no owner (its
-- karma, the -1 per euro given, goes to an account of its own, which no one holds), no end, the
-- largest goal. People give to it from any app; a donation may ask for a receipt by email, whose
-- address is kept until the receipt goes (receipt_email, erased with the account).
INSERT INTO ledger_accounts (id, kind, unit, account_id, created_at)
VALUES ('6d656c6f-6e00-4000-8000-00000000000b', 'karma', 'KARMA', NULL, now());
INSERT INTO campaigns (id, owner_id, title, story, beneficiary, category, goal_minor, currency, ends_at, created_at, owner_karma)
VALUES ('6d656c6f-6e00-4000-8000-000000000001', NULL, 'Keep Melon running',
        'Melon is free for students and households. Your gift pays for its servers, its mail and its upkeep: all of it goes to running the project.',
        'The Melon project', 'community', 100000000, 'EUR', '9999-12-31T00:00:00Z', now(), '6d656c6f-6e00-4000-8000-00000000000b');
INSERT INTO ledger_accounts (id, kind, unit, campaign_id, created_at)
VALUES ('6d656c6f-6e00-4000-8000-00000000000c', 'campaign', 'EUR', '6d656c6f-6e00-4000-8000-000000000001', now());
ALTER TABLE donations ADD COLUMN receipt_email text;
