#!/usr/bin/env bash
# Prints the executables a deployment runs: the broker, and each folder's executable in
# Services/<Name>/App (the gateway, melon and one per service), named in kebab case as Package.swift
# names their products (RefundCalculator: refund-calculator). Not test fixtures or benchmarks.
# The Dockerfile builds these; a test checks that they are the package's and that containers run
# nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
echo broker
for app in Services/*/App; do
    basename "$(dirname "$app")" | sed -E 's/([a-z0-9])([A-Z])/\1-\2/g' | tr '[:upper:]' '[:lower:]'
done
