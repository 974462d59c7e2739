-- The client's network for the per-network limit: an IPv4 address, or an IPv6 address's /64 (one
-- subscriber has a whole /64, so counting raw IPv6 addresses let one client make unlimited requests).
ALTER TABLE contact_requests ADD COLUMN client_network text;
UPDATE contact_requests SET client_network = client_ip WHERE client_ip NOT LIKE '%:%';
CREATE INDEX contact_requests_by_network ON contact_requests (client_network, created_at);
