#!/bin/sh
echo "etref uses gcovr for coverage; see README.md" >&2
exit 1
