#!/usr/bin/env bash
# Runs every Melon test on a fresh Debian machine, as root: installs what is missing, starts a private
# PostgreSQL, builds, and runs unit, contract and integration tests (real ZeroMQ over TCP, real
# processes, real PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."

# Where the time goes: each phase's seconds, printed as it ends and summed up at the end.
timings=""
phase_start=$SECONDS
phase() {
    timings="$timings$1: $((SECONDS - phase_start)) s; "
    echo "test.sh: $1 took $((SECONDS - phase_start)) s" >&2
    phase_start=$SECONDS
}

# System packages the build and the tests need (Debian names).
./deploy/install-deps.sh \
    libzmq3-dev pkg-config `# libzmq and its pkg-config file, for the CZeroMQ system library` \
    python3 python3-zmq `# Debian's Python, for the Majordomo interop peers (Tests/Interop)` \
    python3-venv `# a private environment for the PyPI test tools below` \
    libcurl4-openssl-dev python3-aiosmtpd openssl `# SMTP through libcurl, a real SMTP server to test it, test certificates` \
    libargon2-dev `# Argon2id password hashing (the auth service)` \
    libqpdf-dev libhpdf-dev `# qpdf fills the official PDF blanks, libharu lays out the other forms (pdf-email)` \
    libvips-dev `# libvips checks and re-encodes uploaded images (Shared/Media)` \
    postgresql acl `# the tests' private cluster (deploy/postgres.sh)` \
    poppler-utils `# pdftoppm renders filled forms to check where each glyph lands (Tests/Mail/glyph_columns.py)` \
    gdb `# the threads of a test run that hangs (below)`
command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"
phase "system packages"

# Test tools from PyPI, pinned, in a virtual environment under .build (kept between runs):
# schemathesis checks the gateway against its OpenAPI document; check-jsonschema validates the
# compose file and the Kubernetes manifests; pypdf (with cryptography, for AES) reads the PDFs back;
# PyYAML reads the NetworkPolicies and Secrets of the manifests (Tests/Deploy/check_isolation.py).
# Installed in the background (mostly downloads) while Swift resolves and builds; awaited before the tests.
tools=.build/python-tools
mkdir -p .build
(
    if [ ! -x "$tools/bin/st" ] || ! cmp -s deploy/test-tools.txt "$tools/requirements.txt"; then
        python3 -m venv --clear "$tools"
        "$tools/bin/pip" install --quiet --disable-pip-version-check -r deploy/test-tools.txt
        cp deploy/test-tools.txt "$tools/requirements.txt"
    fi
) >.build/python-tools.log 2>&1 &
python_tools=$!

# A private, throwaway PostgreSQL cluster for the tests, removed on exit.
source deploy/throwaway-postgres.sh --fast
export TEST_DATABASE_URL=$THROWAWAY_DATABASE_URL
# The jobs started in the background (the Python tools, the client build) end with the script too.
trap 'kill ${python_tools:-} ${client:-} 2>/dev/null || true; throwaway_pg_cleanup' EXIT
phase "postgresql"

# Each target depends on exactly what it imports.
swift package resolve
swift package dump-package | python3 deploy/check-dependencies.py
phase "package resolution"

# The Swift client an app developer generates from docs/openapi.json with swift-openapi-generator:
# its own package (Tests/Client), so the main build does not carry the generator. GeneratedClientTests
# checks every operation generated and runs its journey against melon. Built under .build/client
# beside the main build, at the lowest priority: it gives way to the main build and fills the cores
# that build leaves idle (its long single-module stretches and links), then finishes alone.
nice -n 19 swift build --package-path Tests/Client --scratch-path .build/client >.build/client-build.log 2>&1 &
client=$!

# Build everything (executables included: the integration tests start them as processes).
swift build --build-tests "$@"
phase "build (products and tests)"
if ! wait "$client"; then
    cat .build/client-build.log >&2
    echo "test.sh: the generated client did not build (.build/client-build.log)" >&2
    exit 1
fi
phase "generated client build (what was left beside the main build)"
if ! wait "$python_tools"; then
    cat .build/python-tools.log >&2
    echo "test.sh: the Python test tools did not install (.build/python-tools.log)" >&2
    exit 1
fi
MELON_TEST_TOOLS=$(realpath "$tools/bin")
export MELON_TEST_TOOLS
phase "python test tools (what was left beside the build)"

# A hung test must not use up CI's time without a word. The tests run verbosely into .build/tests.log
# (Swift Testing then says when each test starts); the console gets the usual lines. After
# MELON_TEST_MINUTES (20; the tests take about 7), the watchdog saves every thread of the test process to
# .build/tests-threads.txt, prints the last line of every started process's log, and, last, the suites
# and tests that started and never ended: an awaited hang leaves no frame in any thread, only this list
# names it.
log=.build/tests.log
minutes=${MELON_TEST_MINUTES:-20}
swift test --skip-build --verbose "$@" >"$log" 2>&1 &
tests=$!
tail -n +1 -f --pid="$tests" "$log" | grep --line-buffered -v -E \
    '^(◇ Test .* started\.|✔ Test case .* passed after .*|info: .* is represented by similar locations .*|Planning build|Build complete.*)$|TemporaryDirectory\.|^ *"/usr/bin/ld|^/opt/swift/|^(Found|Selected|Candidate|Target|Thread model|InstalledDir|Swift version|clang version|warning: .*swift-frontend)' &
console=$!
stopped=.build/tests-stopped
rm -f "$stopped"
(
    for _ in $(seq $((minutes * 60))); do sleep 1; kill -0 "$tests" 2>/dev/null || exit 0; done
    touch "$stopped" # the run waits for what follows
    for pid in $(pgrep -P "$tests" || true); do
        gdb -p "$pid" -batch -ex "thread apply all bt 40" 2>&1 | swift demangle --simplified
    done >.build/tests-threads.txt
    # What every process the tests started (services, brokers, peers) said last, from its log.
    for pid in $(pgrep -P "$tests" || true); do
        for child in $(pgrep -P "$pid" || true); do
            out=$(readlink "/proc/$child/fd/1" || true)
            echo "$(cat "/proc/$child/comm" 2>/dev/null) ($out): $(tail -n 1 "$out" 2>/dev/null | cut -c1-400)"
        done
    done >.build/tests-children.txt
    # The test process first: swift test holds back what it printed until it ends (a pipe between
    # them), and hands it over once it has; then swift test itself if it is still there.
    kill -KILL $(pgrep -P "$tests" || true) 2>/dev/null || true
    for _ in $(seq 10); do sleep 1; kill -0 "$tests" 2>/dev/null || break; done
    kill -KILL "$tests" 2>/dev/null || true
    sleep 2 # the console's last lines first
    {
        echo "The tests still ran after $minutes minutes and were stopped (threads: .build/tests-threads.txt)."
        echo "Frames in Melon's code:"
        grep -E ' at /.*/(Tests|Services|Shared)/' .build/tests-threads.txt | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?//' | sort | uniq -c | head -30 || true
        grep -E '^BusHarness: ' "$log" | tail -5 || true
        echo "Processes the tests started, with the last line of each one's log:"
        cat .build/tests-children.txt
        echo "Started and never ended:"
        python3 deploy/unfinished-tests.py "$log"
    } >&2
) &
watchdog=$!
status=0
wait "$tests" || status=$?
if [ -e "$stopped" ]; then wait "$watchdog" || true; else kill "$watchdog" 2>/dev/null || true; fi
wait "$console" 2>/dev/null || true
phase "tests"
echo "test.sh: ${timings}total $SECONDS s" >&2
exit "$status"
