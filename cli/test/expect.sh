# SPDX-License-Identifier: Apache-2.0
#
# Shared by the CLI tests (sourced): `expect` runs a command and checks its
# exit code, `contains` checks a file for a text; both count failures in
# $failures and keep the command's stdout/stderr in $tmp/out.txt and
# $tmp/err.txt. The sourcing script sets $tmp and failures=0.

# expect CODE DESCRIPTION -- COMMAND...
expect() {
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want: $*"
    sed 's/^/  | /' "$tmp/out.txt" "$tmp/err.txt" | tail -20
    failures=$((failures + 1))
  else
    echo "ok: $what (exit $got)"
  fi
}

# contains FILE TEXT DESCRIPTION
contains() {
  if ! grep -qF -- "$2" "$1"; then
    echo "FAIL: $3: '$2' not in $1"
    sed 's/^/  | /' "$1" | tail -10
    failures=$((failures + 1))
  fi
}
