# SPDX-License-Identifier: GPL-2.0
#
# KTAP output for the test scripts (the kernel's
# Documentation/dev-tools/ktap.rst), sourced by each of them. The function
# names and counters are those of the kernel's kselftest helpers
# (tools/testing/selftests/kselftest/ktap_helpers.sh); this is the
# project's own small copy of the idea, in POSIX sh, because the scripts
# that run inside the test kernels are /bin/sh (dash, busybox ash) and do
# not see the kernel tree. scripts/ktap-total.py reads what they print.
#
#   ktap_print_header            KTAP version 1
#   ktap_set_plan N              1..N (before the first result)
#   ktap_print_msg TEXT...       # TEXT: a diagnostic line
#   ktap_test_pass DESC          ok N DESC
#   ktap_test_fail DESC          not ok N DESC
#   ktap_test_skip DESC [WHY]    ok N DESC # SKIP WHY
#   ktap_test_result DESC CMD... pass or fail by CMD's exit status
#   ktap_subtest DESC CMD...     CMD's own KTAP output nested under DESC
#                                (indented, '# Subtest: DESC'), then
#                                ok or not ok N DESC by CMD's exit status
#                                (returns 0: the result is recorded)
#   ktap_nest DESC               the same nesting, of standard input
#   ktap_exit_fail_msg TEXT...   Bail out! TEXT; the totals; exit 1
#   ktap_finished                the totals; exit 0 when every planned test
#                                passed or was skipped, else 1
#
# A description is one line without '#' (KTAP reads what follows ' # ' as
# a directive): newlines become spaces and '#' becomes 'No.'.
#
# shellcheck shell=sh
# 'local' is not POSIX, but dash, bash and busybox ash all have it (the
# kernel's ktap_helpers.sh uses it too).
# shellcheck disable=SC3043
# ktap_subtest() runs its command with counters of its own, in a subshell.
# shellcheck disable=SC2030,SC2031

KTAP_TESTNO=1
KTAP_CNT_PASS=0
KTAP_CNT_FAIL=0
KTAP_CNT_SKIP=0
KSFT_NUM_TESTS=0

ktap_print_header() {
	echo "KTAP version 1"
}

ktap_set_plan() {
	KSFT_NUM_TESTS=$1
	echo "1..$KSFT_NUM_TESTS"
}

ktap_print_msg() {
	printf '# %s\n' "$*"
}

__ktap_desc() {
	printf '%s' "$*" | tr '\n\t' '  ' | sed 's/#/No./g'
}

__ktap_test() {
	if [ -n "${3:-}" ]; then
		printf '%s %d %s # %s\n' "$1" "$KTAP_TESTNO" "$(__ktap_desc "$2")" \
			"$(__ktap_desc "$3")"
	else
		printf '%s %d %s\n' "$1" "$KTAP_TESTNO" "$(__ktap_desc "$2")"
	fi
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
}

ktap_test_pass() {
	__ktap_test ok "$1"
	KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
}

ktap_test_fail() {
	__ktap_test "not ok" "$1"
	KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
}

ktap_test_skip() {
	__ktap_test ok "$1" "SKIP${2:+ $2}"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

ktap_test_result() {
	local desc="$1"
	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

# ktap_test_none DESC FINDINGS: pass when FINDINGS is empty; otherwise
# print them as diagnostics and fail.
ktap_test_none() {
	if [ -z "$2" ]; then
		ktap_test_pass "$1"
	else
		printf '%s\n' "$2" | sed 's/^/# /'
		ktap_test_fail "$1"
	fi
}

# Indent standard input one level and name it after its first version line.
ktap_nest() {
	awk -v name="$(__ktap_desc "$1")" '
		{ print "    " $0 }
		!named && /^[ \t]*KTAP version [0-9]+$/ {
			print "    # Subtest: " name
			named = 1
		}'
}

# CMD runs in a subshell with counters of its own (it may be a function
# that uses these helpers); its output is kept, in memory (no file: in a
# UML guest /tmp is hostfs), until it ends.
ktap_subtest() {
	local desc="$1" out rc
	shift
	out=$(
		KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0
		KSFT_NUM_TESTS=0
		("$@") 2>&1 && echo 0 || echo "$?"
	)
	rc=${out##*[!0-9]}
	out=${out%"$rc"}
	out=${out%"
"}
	if [ -n "$out" ]; then
		printf '%s\n' "$out" | ktap_nest "$desc"
	fi
	if [ "$rc" -eq 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

ktap_print_totals() {
	echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:0 xpass:0 skip:$KTAP_CNT_SKIP error:0"
}

ktap_exit_fail_msg() {
	echo "Bail out! $*"
	ktap_print_totals
	exit 1
}

ktap_finished() {
	ktap_print_totals
	[ $((KTAP_CNT_PASS + KTAP_CNT_SKIP)) -eq "$KSFT_NUM_TESTS" ]
	exit $?
}
