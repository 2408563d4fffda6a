#!/usr/bin/env bash
# `npm run test:all`: the whole suite on PostgreSQL and on the embedded PGlite, both at once, each
# split into TEST_SHARDS mocha processes (default 2) of about equal time (scripts/test-shards.js).
# They share nothing that matters: every PostgreSQL process makes a database of its own, every
# PGlite gateway has its own in-memory database, and the tests that use Redis work under a prefix of
# their own. Most of a test file's time is spent waiting on timers and I/O, not computing, so the
# processes together take little more than the longest one. Each one's output goes to its own file
# and is printed whole at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
rm -f .tmp/test-*.log .tmp/test-times-*.txt
shards=${TEST_SHARDS:-2}
if ! [[ "$shards" =~ ^[0-9]+$ ]] || [ "$shards" -lt 1 ] || [ "$shards" -gt 16 ]; then
  echo "TEST_SHARDS must be a whole number from 1 to 16, got \"$shards\"" >&2
  exit 2
fi

# Built once here: processes starting together would otherwise all find the panel stale.
node -e "import('./scripts/panel-build.js').then((m) => m.ensurePanelBuilt())" || exit 1

started=$(date +%s)
# Spec output plus the slowest files at the end (the whole list in .tmp/test-times-*.txt).
reporter=(--reporter scripts/spec-with-file-times.cjs)

# The PostgreSQL half leaves some suites to the PGlite half: the hostile-input sweep (thousands of
# requests refused before any query), the reuse of in-memory embedded databases (PGlite's own),
# suites whose subject is not the database (what they store is what other suites cover on both):
# the unit tests, the device agent, TLS and the command line's help; and suites that start the
# embedded database whatever TEST_DATABASE says (DATA_DIR's file modes, the first start's
# progress, keys in use on one data directory, the simulator's flags, the data directory's
# permissions): run in both halves they would test the same thing twice. `npm test` still runs
# them all on PostgreSQL.
pglite_only=(test/http/bad-input-sweep.test.ts test/storage/in-memory-reuse.test.ts test/unit test/agent test/tls test/cli/help.test.ts
  test/lifecycle/data-dir-modes.test.ts test/lifecycle/startup-progress.test.ts test/cli/keys-in-use.test.ts
  test/retry/simulate-flags.test.ts test/storage/data-dir-permissions.test.ts)
# Some suites test nothing of the database, and the PostgreSQL half covers them: several nodes cannot
# share PGlite (cluster, multinode), the deployment files hold no database (deploy), a few start
# `sms-gateway serve` or the demo on the embedded database as a newcomer does, whatever
# TEST_DATABASE says, and the control panel is a client of the API, whose own suites run on both
# (its browser tests are the heaviest of all on two cores). Hostile HTTP clients (hostile) hold
# nothing of the database either. Nor do the SDKs and the MCP server (sdk, mcp: clients of the
# API), and the clients we did not write (Kannel and Net::SMPP for SMPP, swaks for SMTP), which
# speak protocols whose storage the suites of those protocols cover on both databases. Nor do the
# command line's own suites (accounts, keys, devices, webhooks, SMPP, Twilio, upstreams, users):
# every command starts a process that opens the database, a few seconds each on PGlite (those
# suites took 140, 135 and 99 s there, the most of any), and the commands' SQL is the services'
# own, which the suites of those services run on both. The command line's opening of the embedded
# database has suites of its own that run on PGlite (keys in use, the data directory's modes and
# permissions, the first start's progress).
postgres_only=(test/cluster test/multinode test/deploy test/panel test/hostile test/sdk test/mcp
  test/lifecycle/compiled.test.ts test/lifecycle/serve.test.ts test/lifecycle/demo.test.ts test/lifecycle/shutdown-drain.test.ts
  test/smpp/kannel.test.ts test/smpp/perl-esme.test.ts test/mail/swaks.test.ts
  test/webhooks/cli.test.ts test/smpp/cli.test.ts test/twilio/cli.test.ts test/cli/cli.test.ts test/cli/upstreams.test.ts test/cli/users.test.ts)

all_files=$(find test -name '*.test.ts' | sort)
names=()
pids=()
# run_family <family> <env...> -- <ignored paths...>: starts its shards in the background.
run_family() {
  local family=$1 database=$2
  shift 2
  local shard=0 files
  while IFS= read -r files; do
    shard=$((shard + 1))
    [ -n "$files" ] || continue
    local name="${family}-${shard}"
    # shellcheck disable=SC2086 # the file list is split on purpose (paths hold no spaces)
    FILE_TIMES=".tmp/test-times-${name}.txt" TEST_DATABASE=$database npx mocha $files "${reporter[@]}" >".tmp/test-${name}.log" 2>&1 &
    names+=("$name")
    pids+=($!)
  done < <(node scripts/test-shards.js "$family" "$shards" "$@" <<<"$all_files")
}
run_family postgres postgres "${pglite_only[@]}"
run_family pglite pglite "${postgres_only[@]}"

statuses=()
for pid in "${pids[@]}"; do
  wait "$pid"
  statuses+=($?)
done

for name in "${names[@]}"; do
  echo "===== .tmp/test-${name}.log ====="
  cat ".tmp/test-${name}.log"
done
# Mocha prints each failure after its counts; the logs above are long, so the failures are printed
# again last, where a reader of only the end of the output still finds them.
for name in "${names[@]}"; do
  if grep -qE '^ +[0-9]+ failing' ".tmp/test-${name}.log"; then
    echo "===== failures in .tmp/test-${name}.log ====="
    sed -n '/^ \+[0-9]\+ failing/,$p' ".tmp/test-${name}.log"
  fi
done
# Every file's time, per family, slowest first: what test/file-times.txt is refreshed from.
for family in postgres pglite; do
  cat .tmp/test-times-"$family"-*.txt 2>/dev/null | sort -rn >".tmp/test-times-${family}.txt"
done
summary() { grep -E '^ +[0-9]+ (passing|failing|pending)' "$1" | tr -s ' ' | paste -sd ',' -; }
failed=0
for i in "${!names[@]}"; do
  printf '===== %-12s %s (exit %s)\n' "${names[$i]}:" "$(summary ".tmp/test-${names[$i]}.log")" "${statuses[$i]}"
  [ "${statuses[$i]}" -eq 0 ] || failed=1
done
echo "===== all in $(( $(date +%s) - started )) s"
[ "$failed" -eq 0 ]
