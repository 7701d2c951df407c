#!/usr/bin/env bash
# test-steps.sh NAME=CMD...: run every step, even after one fails, and say
# at the end which failed. Each argument is a step name, an equals sign and
# the command line to run (through bash). Exit status 1 when any failed.
set -uo pipefail
failed=()
passed=0
for step in "$@"; do
	name=${step%%=*}
	cmd=${step#*=}
	echo "=== step $name: $cmd"
	start=$SECONDS
	if bash -c "$cmd"; then
		passed=$((passed + 1))
		echo "=== step $name passed in $((SECONDS - start)) s"
	else
		failed+=("$name")
		echo "=== step $name FAILED in $((SECONDS - start)) s"
	fi
done
echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "make test: these steps failed: ${failed[*]} (their output is above, each after its '=== step' line)"
fi
echo "steps: $passed passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
