#!/bin/sh
# scripts/mariadb.sh: start a private MariaDB for the MySQL log tests.
#
#   eval "$(scripts/mariadb.sh start)"   # prints export LOGBOOK_TEST_MYSQL_DSN=... and MARIADB_DIR=...
#   scripts/mariadb.sh stop "$MARIADB_DIR"
#
# Installs mariadb-server from Debian when missing (as root), runs mariadbd
# as the invoking user (mysql when root) in a temporary data directory,
# listening on a private socket and on 127.0.0.1 at a free port, and
# creates the database logbook_test. Nothing else on the machine is used.
set -eu

cmd=${1:-start}
if [ "$cmd" = stop ]; then
	dir=${2:?usage: mariadb.sh stop DIR}
	if [ -f "$dir/mariadbd.pid" ]; then
		pid=$(cat "$dir/mariadbd.pid")
		kill "$pid" 2>/dev/null || true
		# mariadbd writes its files until it has exited: wait (at most
		# 30 s) before removing them, or rm races it.
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do
			sleep 0.2
			i=$((i + 1))
		done
	fi
	rm -rf "$dir" 2>/dev/null || rm -rf "$dir" 2>/dev/null || true
	exit 0
fi

if ! command -v mariadbd >/dev/null 2>&1 && ! [ -x /usr/sbin/mariadbd ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "mariadb.sh: mariadb-server is not installed and I am not root" >&2
		exit 1
	fi
	echo "mariadb.sh: installing mariadb-server from Debian" >&2
	# Wait up to 10 minutes for another apt holding the dpkg lock.
	lock="-o DPkg::Lock::Timeout=600"
	if ! (DEBIAN_FRONTEND=noninteractive apt-get $lock install -y -q mariadb-server >/dev/null 2>&1 ||
		{ apt-get $lock update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get $lock install -y -q mariadb-server >/dev/null; }) >&2; then
		echo "mariadb.sh: could not install mariadb-server (apt-get failed: see above)" >&2
		exit 1
	fi
fi
PATH=$PATH:/usr/sbin:/usr/bin

dir=$(mktemp -d /tmp/logbook-mariadb.XXXXXX)
user=$(id -un)
[ "$user" = root ] && user=mysql && chown mysql "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 33306)
mariadb-install-db --no-defaults --user="$user" --datadir="$dir/data" --auth-root-authentication-method=normal >"$dir/install.log" 2>&1
mariadbd --no-defaults --user="$user" --datadir="$dir/data" --socket="$dir/sock" --pid-file="$dir/mariadbd.pid" \
	--bind-address=127.0.0.1 --port="$port" --skip-name-resolve --innodb-flush-log-at-trx-commit=1 \
	>"$dir/mariadbd.log" 2>&1 &
i=0
until mariadb --no-defaults --socket="$dir/sock" -uroot -e 'select 1' >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "mariadb.sh: mariadbd did not start; see $dir/mariadbd.log" >&2
		tail -5 "$dir/mariadbd.log" >&2
		exit 1
	fi
	sleep 0.2
done
mariadb --no-defaults --socket="$dir/sock" -uroot -e "CREATE DATABASE logbook_test; CREATE USER 'logbook'@'127.0.0.1' IDENTIFIED BY 'logbook'; GRANT ALL ON \`logbook_test%\`.* TO 'logbook'@'127.0.0.1';"
echo "export LOGBOOK_TEST_MYSQL_DSN='logbook:logbook@tcp(127.0.0.1:$port)/logbook_test'"
echo "export MARIADB_DIR='$dir'"
