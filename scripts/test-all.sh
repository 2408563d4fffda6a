#!/usr/bin/env bash
# `npm run test:all`: the whole suite on PostgreSQL and on the embedded PGlite, both at once.
# They share nothing (the PostgreSQL run has a database of its own; every PGlite gateway its own
# in-memory database), and much of each run waits on timers and I/O, so together they take little
# more than the longer one. Each run's output goes to its own file and is printed whole at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
logs=(.tmp/test-postgres.log .tmp/test-pglite.log)

# Built once here: two runs starting together would otherwise both find the panel stale.
node -e "import('./scripts/panel-build.js').then((m) => m.ensurePanelBuilt())" || exit 1

started=$(date +%s)
# Spec output plus the slowest files at the end (the whole list in .tmp/test-times-*.txt).
reporter=(--reporter scripts/spec-with-file-times.cjs)
# The PostgreSQL run is the longer one, so some suites run only on
# PGlite here: the hostile-input sweep (thousands of requests refused before any query), the reuse
# of in-memory embedded databases (PGlite's own), and suites whose subject is not the database
# (what they store is what other suites cover on both): the unit tests, the device agent, TLS and
# the command line's help. `npm test` still runs them all on PostgreSQL.
pglite_only=(test/http/bad-input-sweep.test.ts test/storage/in-memory-reuse.test.ts test/unit test/agent test/tls test/cli/help.test.ts)
# mocha's --ignore takes a file or a glob: a folder is all the files below it.
postgres_ignored=()
for path in "${pglite_only[@]}"; do
  if [ -d "$path" ]; then postgres_ignored+=(--ignore "$path/**"); else postgres_ignored+=(--ignore "$path"); fi
done
FILE_TIMES=.tmp/test-times-postgres.txt npx mocha 'test/**/*.test.ts' "${postgres_ignored[@]}" "${reporter[@]}" >"${logs[0]}" 2>&1 &
postgres=$!
# Some suites test nothing of the database, and the PostgreSQL run covers them: several nodes cannot
# share PGlite (cluster, multinode), the deployment files hold no database (deploy), a few start
# `sms-gateway serve` or the demo on the embedded database as a newcomer does, whatever
# TEST_DATABASE says, and the control panel is a client of the API, whose own suites run on both
# (its browser tests are the heaviest of all on two cores). Hostile HTTP clients (hostile) hold
# nothing of the database either. Nor do the SDKs and the MCP server (sdk, mcp: clients of the
# API), and the clients we did not write (Kannel and Net::SMPP for SMPP, swaks for SMTP), which
# speak protocols whose storage the suites of those protocols cover on both databases. The command
# line on the embedded database is covered by its own suites (cli); the webhooks, SMPP and Twilio
# commands go through the same opening of the database, and each start of a process on PGlite
# costs seconds.
same_in_both=(test/cluster test/multinode test/deploy test/panel test/hostile test/sdk test/mcp
  test/lifecycle/compiled.test.ts test/lifecycle/serve.test.ts test/lifecycle/demo.test.ts test/lifecycle/shutdown-drain.test.ts
  test/smpp/kannel.test.ts test/smpp/perl-esme.test.ts test/mail/swaks.test.ts
  test/webhooks/cli.test.ts test/smpp/cli.test.ts test/twilio/cli.test.ts)
ignored=()
for path in "${same_in_both[@]}"; do
  if [ -d "$path" ]; then ignored+=(--ignore "$path/**"); else ignored+=(--ignore "$path"); fi
done

FILE_TIMES=.tmp/test-times-pglite.txt TEST_DATABASE=pglite npx mocha 'test/**/*.test.ts' "${ignored[@]}" "${reporter[@]}" >"${logs[1]}" 2>&1 &
pglite=$!
wait "$postgres"; postgres_status=$?
wait "$pglite"; pglite_status=$?

for i in 0 1; do
  echo "===== ${logs[$i]} ====="
  cat "${logs[$i]}"
done
# Mocha prints each failure after its counts; the logs above are long, so the failures are printed
# again last, where a reader of only the end of the output still finds them.
for i in 0 1; do
  if grep -qE '^ +[0-9]+ failing' "${logs[$i]}"; then
    echo "===== failures in ${logs[$i]} ====="
    sed -n '/^ \+[0-9]\+ failing/,$p' "${logs[$i]}"
  fi
done
summary() { grep -E '^ +[0-9]+ (passing|failing|pending)' "$1" | tr -s ' ' | paste -sd ',' -; }
echo "===== PostgreSQL: $(summary "${logs[0]}") (exit ${postgres_status})"
echo "===== PGlite:     $(summary "${logs[1]}") (exit ${pglite_status})"
echo "===== both in $(( $(date +%s) - started )) s"
[ "$postgres_status" -eq 0 ] && [ "$pglite_status" -eq 0 ]
