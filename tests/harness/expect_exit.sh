#!/bin/sh
# expect_exit.sh CODE PATTERN COMMAND...: runs COMMAND; passes when it exits with CODE and its output
# (stdout and stderr) matches the extended regular expression PATTERN.
code=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" -ne "$code" ]; then
  echo "expect_exit: expected exit status $code, got $got"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
  echo "expect_exit: output does not match: $pattern"
  exit 1
fi
