#!/bin/sh
# The server in the foreground as user clickhouse, owning its (possibly freshly mounted) data volume.
set -e
chown -R clickhouse:clickhouse /var/lib/clickhouse /var/log/clickhouse-server
exec setpriv --reuid=clickhouse --regid=clickhouse --init-groups \
  /usr/sbin/clickhouse-server --config-file=/etc/clickhouse-server/config.xml
