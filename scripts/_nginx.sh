# Makes sure Debian's nginx exists for the topology tests (tests/topology: scripts/topology.sh runs
# docker/nginx.conf with it). Installed like Chromium (scripts/_browser.sh): apt, when root. The package
# never starts a server here: scripts/topology.sh runs its own nginx on its own port and files.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ] && command -v apt-get >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
  echo "installing Debian's nginx for the topology tests..." >&2
  (apt-get install -y -q nginx >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q nginx >/dev/null 2>&1; }) \
    || echo "could not install nginx: topology tests will skip" >&2
fi
