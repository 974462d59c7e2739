#!/usr/bin/python3
"""The marketplace's feed and search over many listings, at a fixed rate, through a running `melon`.

Starts `melon` (the binary given) on a database you name, with its mail going to an SMTP server
(aiosmtpd) this script runs. Setup: two Trinity accounts register (codes from the mail), sign the
marketplace rules and log in to the marketplace app; one lists an item with a photo through the
routes. Then psql adds --listings active listings of --sellers traders of the same network (titles
and descriptions made from word lists, prices and categories spread), as the routes would leave
them (with their words in the vocabulary), then VACUUM (ANALYZE).

Reads: an open loop sends, in turn, the feed's first page, a category page, a price-sorted page, a
free-items page, a second page (the first's nextAfter), and searches by words, by a phrase and with
a typo, at --rate requests per second for --duration seconds from --threads threads. A request's
latency counts from when it was due (no coordinated omission). Prints the rate reached, p50, p99,
max and errors per run, then each path's own p50 and p99 over all runs.

  .build/release/melon must exist (swift build -c release --product melon)
  /usr/bin/python3 Benchmarks/MarketplaceLoad/marketplace-load.py --melon .build/release/melon \
      --database-url postgres://... --runs 3
"""
import json, os, statistics, struct, sys, time, uuid, zlib
from urllib.parse import quote

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
from melon_bench import PASSWORD, Client, Melon, arguments, make_account, open_loop, percentile, psql

def png(width=40, height=30):
    """A small valid PNG: grey pixels, made here."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def trader(melon, address):
    """A Trinity account that signed the marketplace rules: its marketplace access token."""
    make_account(melon, address)
    first = Client(melon.base, melon.post("/v1/auth/login", {"email": address, "password": PASSWORD, "app": "marketplace"})[1]["accessToken"])
    first.expect("setup", "PUT", "/v1/me/agreements/marketplace-rules", {"version": 1})
    status, reply = melon.post("/v1/auth/login", {"email": address, "password": PASSWORD, "app": "marketplace"})
    if status != 200:
        sys.exit(f"phase setup: logging {address} in answered {status}")
    return reply["accessToken"]


def main():
    parser = arguments(__doc__)
    parser.add_argument("--rate", type=float, default=100, help="feed and search reads per second")
    parser.add_argument("--duration", type=float, default=20, help="seconds of reads per run")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--listings", type=int, default=100_000)
    parser.add_argument("--sellers", type=int, default=2_000)
    args = parser.parse_args()

    with Melon(args.melon, args.database_url) as melon:
        tokens = [trader(melon, f"bench-{uuid.uuid4().hex[:12]}@tcd.ie") for _ in range(2)]
        seller = Client(melon.base, tokens[0])
        seller.connection.request("POST", "/v1/marketplace/photos", body=png(),
                                  headers={"Content-Type": "image/png", "Authorization": "Bearer " + tokens[0]})
        reply = seller.connection.getresponse()
        uploaded = json.loads(reply.read())
        if reply.status != 201:
            sys.exit(f"phase setup: the photo upload answered {reply.status}: {uploaded}")
        photo = uploaded["id"]
        seller.expect("setup", "POST", "/v1/marketplace/listings", {
            "title": "Calculus textbook", "description": "Stewart, 8th edition", "priceMinorUnits": 2500, "category": "textbooks",
            "condition": "good", "campus": "college-green", "photoIds": [photo]})

        started = time.monotonic()
        psql(args.database_url, f"""
            INSERT INTO marketplace_chat.traders (account_id, university_id, username, updated_at)
            SELECT gen_random_uuid(), 'tcd', 'seller' || i, now() FROM generate_series(1, {args.sellers}) i;
            CREATE TEMP TABLE s AS SELECT account_id, row_number() OVER () - 1 AS n FROM marketplace_chat.traders WHERE username LIKE 'seller%';
            CREATE TEMP TABLE w (kind text, n int, word text);
            INSERT INTO w SELECT 'adjective', ordinality - 1, word FROM unnest(ARRAY['Used', 'Nearly new', 'Vintage', 'Cheap', 'Barely used',
                'Large', 'Small', 'Sturdy', 'Classic', 'Modern', 'Foldable', 'Wooden', 'Blue', 'Black', 'White']) WITH ORDINALITY AS t(word);
            INSERT INTO w SELECT 'noun', ordinality - 1, word FROM unnest(ARRAY['calculus textbook', 'chemistry notes', 'desk lamp', 'office chair',
                'kettle', 'toaster', 'road bike', 'mountain bike', 'guitar', 'keyboard', 'monitor', 'laptop stand', 'bookshelf', 'mini fridge',
                'rice cooker', 'winter coat', 'running shoes', 'tennis racket', 'concert ticket', 'microwave', 'physics textbook', 'headphones',
                'printer', 'bedside table', 'yoga mat', 'frying pan', 'backpack', 'calculator', 'hoodie', 'mirror']) WITH ORDINALITY AS t(word);
            INSERT INTO marketplace_chat.listings (id, seller, university_id, campus_id, category_id, title, description, price_minor, currency,
                condition, state, feed_seq, created_at, updated_at, published_at, expires_at)
            SELECT gen_random_uuid(), s.account_id, 'tcd', 'college-green',
                (ARRAY['textbooks','electronics','furniture','kitchen','clothing','bikes','sports','music','tickets','other'])[1 + i % 10],
                a.word || ' ' || n.word, 'Good condition, pick up on campus. ' || n.word || ' from ' || (2015 + i % 10),
                CASE WHEN i % 25 = 0 THEN 0 ELSE 100 * (1 + (i * 7919) % 500) END, 'EUR',
                (ARRAY['new','like_new','good','fair','poor'])[1 + i % 5], 'active', nextval('marketplace_chat.listing_feed_seq'),
                now(), now(), now(), now() + interval '30 days'
            FROM generate_series(1, {args.listings}) i
            JOIN s ON s.n = i % {args.sellers}
            JOIN w a ON a.kind = 'adjective' AND a.n = (i * 31) % 15
            JOIN w n ON n.kind = 'noun' AND n.n = (i * 17) % 30;
            INSERT INTO marketplace_chat.title_words (university_id, word)
            SELECT DISTINCT university_id, unnest(tsvector_to_array(to_tsvector('simple', title))) FROM marketplace_chat.listings
            ON CONFLICT DO NOTHING;
        """)
        # As a settled database would have them: hint bits set, the visibility map made, statistics read.
        psql(args.database_url, "VACUUM (ANALYZE) marketplace_chat.listings")
        psql(args.database_url, "VACUUM (ANALYZE) marketplace_chat.traders")
        print(f"setup: {args.listings} listings of {args.sellers} sellers in {time.monotonic() - started:.1f} s", flush=True)

        reader = Client(melon.base, tokens[1])
        first = reader.expect("setup", "GET", "/v1/marketplace/listings")
        feed = "/v1/marketplace/listings"
        paths = [
            feed, f"{feed}?category=furniture", f"{feed}?sort=price_asc&maxPrice=5000", f"{feed}?free=true",
            f"{feed}?after={quote(first['nextAfter'])}", f"{feed}?q=calculus", f"{feed}?q={quote('desk lamp')}", f"{feed}?q=calculas",
            f"{feed}?q=guitar&sort=price_asc", f"{feed}?q={quote('mini fridge')}&category=kitchen",
        ]
        for path in paths:
            reply = reader.expect("setup", "GET", path)
            print(f"  {path}: {len(reply['listings'])} listings", flush=True)
        open_loop(melon.base, tokens, paths, args.rate, 3, args.threads)  # warm-up
        p50s, p99s, by_path = [], [], {path: [] for path in paths}
        for run in range(1, args.runs + 1):
            latencies, errors, seconds = open_loop(melon.base, tokens, paths, args.rate, args.duration, args.threads)
            p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
            p50s.append(p50)
            p99s.append(p99)
            print(f"run {run}: {len(latencies)} GETs at {len(latencies) / seconds:.0f}/s (asked {args.rate:.0f}/s), "
                  f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms, {errors} errors", flush=True)
        print(f"medians over {args.runs} runs: p50 {statistics.median(p50s):.1f} ms, p99 {statistics.median(p99s):.1f} ms")

        # Each path alone, one request at a time: which of them costs what.
        reader = Client(melon.base, tokens[1])  # a new connection: the gateway closed the idle one
        for path in paths:
            for _ in range(50):
                began = time.monotonic()
                reader.expect("paths", "GET", path)
                by_path[path].append((time.monotonic() - began) * 1000)
            print(f"  {path}: p50 {percentile(by_path[path], 50):.1f} ms, p99 {percentile(by_path[path], 99):.1f} ms, one at a time", flush=True)


if __name__ == "__main__":
    main()
