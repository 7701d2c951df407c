#!/bin/sh
# Checks that the current branch is named <area>/<short-topic>.
git rev-parse --abbrev-ref HEAD | grep -Eq '^[a-z]+/[a-z0-9-]+$'
