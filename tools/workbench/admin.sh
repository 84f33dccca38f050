#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tests of kportreserve(8) against a fake securityfs directory; its
# tests against the real one run in the selftest VM (selftest.sh).
# Ends with "admin: N passed, N failed".
. "$(dirname "$0")/lib.sh"

sh "$TOP/tools/kportreserve/tests/run.sh"
