#!/bin/sh
# As the official image's: a command that is not `minio` is minio's arguments.
set -e
if [ "${1}" != "minio" ]; then
  set -- minio "$@"
fi
exec "$@"
