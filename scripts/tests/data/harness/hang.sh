#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=15 ci=15
#
# Fixture of harness_verdict.sh: a test that never ends.
exec sleep infinity
