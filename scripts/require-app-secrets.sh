#!/bin/sh
# The compose app profile runs several API and worker processes: they must share one JWT secret and one
# configuration encryption key, so neither may be generated per process. Stops the container with the fix.
missing=""
[ -n "$JWT_SECRET" ] || missing="$missing JWT_SECRET"
[ -n "$CONFIG_ENCRYPTION_KEY" ] || missing="$missing CONFIG_ENCRYPTION_KEY"
if [ -n "$missing" ]; then
  echo "The app profile needs$missing: export them or put them in .env beside docker-compose.yml (each: openssl rand -hex 32)." >&2
  exit 1
fi
