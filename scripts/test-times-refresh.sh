#!/usr/bin/env bash
# Rewrites test/file-times.txt, the weights `npm run test:all` balances its shards by, from the
# file times the last `npm run test:all` left in .tmp/test-times-{postgres,pglite}.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
for family in postgres pglite; do
  if [ ! -s ".tmp/test-times-${family}.txt" ]; then
    echo "no .tmp/test-times-${family}.txt: run \`npm run test:all\` first" >&2
    exit 1
  fi
done
{
  head -3 test/file-times.txt
  for family in postgres pglite; do awk -v family="$family" '{ print $1, family, $3 }' ".tmp/test-times-${family}.txt"; done
} >test/file-times.txt.new
mv test/file-times.txt.new test/file-times.txt
echo "test/file-times.txt: $(grep -vc '^#' test/file-times.txt) files"
