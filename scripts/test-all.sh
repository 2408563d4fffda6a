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
npm test >"${logs[0]}" 2>&1 &
postgres=$!
# Several nodes cannot share PGlite, and the deployment files hold no database: those suites run on
# PostgreSQL whatever TEST_DATABASE says, so the PostgreSQL run covers them and this one leaves them out.
TEST_DATABASE=pglite npx mocha 'test/**/*.test.ts' --ignore 'test/cluster/**' --ignore 'test/multinode/**' --ignore 'test/deploy/**' >"${logs[1]}" 2>&1 &
pglite=$!
wait "$postgres"; postgres_status=$?
wait "$pglite"; pglite_status=$?

for i in 0 1; do
  echo "===== ${logs[$i]} ====="
  cat "${logs[$i]}"
done
summary() { grep -E '^ +[0-9]+ (passing|failing|pending)' "$1" | tr -s ' ' | paste -sd ',' -; }
echo "===== PostgreSQL: $(summary "${logs[0]}") (exit ${postgres_status})"
echo "===== PGlite:     $(summary "${logs[1]}") (exit ${pglite_status})"
echo "===== both in $(( $(date +%s) - started )) s"
[ "$postgres_status" -eq 0 ] && [ "$pglite_status" -eq 0 ]
