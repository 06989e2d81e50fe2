#!/bin/sh
# run.sh SECONDS TARGET... - runs each libFuzzer target in build-fuzz/bin for
# SECONDS seconds, one after the other, on a corpus seeded from testdata/ and
# ../shared/corpus (build-fuzz/corpus/<target>, kept between runs).  Crashes
# are written to build-fuzz/artifacts/<target>/; exit 1 if any target failed.
secs=$1; shift
[ "$secs" = 0 ] && exit 0  # build only
status=0
for t in "$@"; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus" build-fuzz/artifacts/$t
  /usr/bin/python3 fuzz/seeds.py "$t" "$corpus" >/dev/null || exit 1
  echo "  FUZZ    $t (${secs}s)"
  if ! nice -n 10 build-fuzz/bin/fuzz_$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/$t/ \
       "$corpus" >build-fuzz/fuzz_$t.log 2>&1; then
    echo "fuzz: $t failed; see build-fuzz/fuzz_$t.log and build-fuzz/artifacts/$t/"
    grep -m3 -E "ERROR|fuzz check failed|runtime error" build-fuzz/fuzz_$t.log
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss" build-fuzz/fuzz_$t.log | tr '\n' ' '
  echo "corpus: $(ls "$corpus" | wc -l) files"
done
exit $status
