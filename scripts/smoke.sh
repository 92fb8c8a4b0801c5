#!/usr/bin/env bash
set -euo pipefail
echo "smoke: nothing yet"
