#!/bin/sh
# make fuzz: every fuzz target for FUZZTIME, then RANDPROGS random programs
# compared between the interpreter and every compiled mode. Logs go to
# FUZZOUT (tmp/fuzz, git-ignored); a summary with the executions of each
# target ends the output. Exit status 1 if a target or the random programs
# found something: crashers are kept by go test in the package's
# testdata/fuzz/FuzzX/ (rerun them with go test -run=FuzzX/NAME), random
# program findings as .tir files in FUZZOUT/randprog.
#
# -fuzzminimizetime 0: with Go's default (60s), the fuzzer spends nearly
# all its time minimizing every new interesting input (issue 10).
# -parallel: one worker per core.
set -u
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
RANDPROGS=${RANDPROGS:-10000}
RANDSEED=${RANDSEED:-100000}
FUZZOUT=${FUZZOUT:-tmp/fuzz}
PARALLEL=${PARALLEL:-$(nproc 2>/dev/null || echo 2)}
FUZZFLAGS=${FUZZFLAGS:--fuzzminimizetime 0 -parallel $PARALLEL}

mkdir -p "$FUZZOUT"
status=0
summary=""
for target in \
	./dialects/parser:FuzzParseRoundTrip \
	./dialects/tc:FuzzImport \
	./test/fuzz:FuzzPipeline \
	./tools/internal/npy:FuzzRead \
	./dialects/sizeexpr:FuzzSimplify; do
	pkg=${target%%:*}
	name=${target##*:}
	log="$FUZZOUT/$name.log"
	echo "== $name ($pkg, $FUZZTIME)"
	# shellcheck disable=SC2086
	$GO test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" $FUZZFLAGS >"$log" 2>&1
	rc=$?
	last=$(grep 'execs:' "$log" | tail -1)
	tail -3 "$log"
	if [ $rc -ne 0 ]; then
		status=1
		summary="$summary
$name: FAILED (see $log) $last"
	else
		summary="$summary
$name: $last"
	fi
done

echo "== random programs: $RANDPROGS from seed $RANDSEED, every mode"
$GO test ./test/randprog -run '^TestRandomPrograms$' -timeout 0 -v \
	-randprog.n "$RANDPROGS" -randprog.seed "$RANDSEED" -randprog.keep "$FUZZOUT/randprog" \
	>"$FUZZOUT/randprog.log" 2>&1
rc=$?
grep -E 'programs \(seeds|^--- |^(ok|FAIL)' "$FUZZOUT/randprog.log"
if [ $rc -ne 0 ]; then
	status=1
	summary="$summary
random programs: FAILED (see $FUZZOUT/randprog.log and $FUZZOUT/randprog/)"
else
	summary="$summary
random programs: $(grep -o 'compared with the interpreter: .*' "$FUZZOUT/randprog.log")"
fi
echo "== summary$summary"
exit $status
