# Makes sure a Chromium for the browser tests exists (Debian's package; no browser download by Playwright).
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing Debian's chromium for the browser tests..." >&2
  (apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; }) \
    || echo "could not install chromium: browser tests will skip" >&2
fi
