#!/bin/sh
# Installs the SMS gateway's device agent on an Android phone in Termux, pairs it with the
# gateway and starts it, and makes Termux:Boot start it after a reboot (docs/agent-termux.md).
# The gateway serves this script with its own address filled in; the line it gives saves it to a
# file and runs it with the pairing URL (src/modules/devices/install-command.ts):
#   curl -fsSL -o "$f" https://gateway.example.com/agent/install.sh && sh "$f" 'smsgw://...'
# Without the pairing URL as its argument it asks for it, so that the URL (it holds the device's
# token) stays out of the shell's history.
set -eu

GATEWAY=@GATEWAY@
STATE="$HOME/.sms-gateway-agent"
LOG="$STATE/agent.log"

say() { printf 'sms-gateway-agent: %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 1
}

pairing=${1:-}
# Asked on the terminal: piped into sh (curl ... | sh), standard input is this script itself.
if [ -z "$pairing" ] && (: </dev/tty) 2>/dev/null; then
  printf 'Pairing URL (smsgw://..., from the gateway): ' >/dev/tty
  IFS= read -r pairing </dev/tty || true
fi
case "$pairing" in
  smsgw://*) ;;
  '') fail 'the pairing URL is missing: give it as the argument, sh install.sh '"'"'smsgw://...'"'"' (the control panel shows the whole line)' ;;
  *) fail 'the pairing URL starts with smsgw:// (the control panel shows it next to the QR code)' ;;
esac
if [ -z "${PREFIX:-}" ] || ! command -v pkg >/dev/null 2>&1; then
  fail 'this installs the agent in Termux (no pkg here); on another machine see docs/agent-modem.md'
fi

# Node.js runs the agent; termux-api holds the termux-sms-send, termux-sms-list... commands that
# the Termux:API app answers.
missing=
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing="$missing nodejs"
command -v termux-sms-send >/dev/null 2>&1 || missing="$missing termux-api"
if [ -n "$missing" ]; then
  say "installing$missing with pkg"
  # shellcheck disable=SC2086 # one word per package
  pkg install -y $missing
fi

# The agent comes from this gateway as one file with its dependencies inside: npm asks no registry.
tmp=$(mktemp -d "${TMPDIR:-$PREFIX/tmp}/sms-gateway-agent.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say "downloading the agent from $GATEWAY"
curl -fsSL "$GATEWAY/agent/sms-gateway-agent.tgz" -o "$tmp/sms-gateway-agent.tgz" || fail "the agent did not download from $GATEWAY (curl says why above); nothing was installed"
npm install -g --no-audit --no-fund --loglevel=error "$tmp/sms-gateway-agent.tgz" >&2

# An agent already running (installed before, or a new token for this phone) gives way: one
# process per state directory. Its lock file names it.
for lock in "$STATE/agent.lock" "$STATE"/*/agent.lock; do
  [ -f "$lock" ] || continue
  pid=$(head -n 1 "$lock")
  case "$pid" in '' | *[!0-9]*) continue ;; esac
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q sms-gateway-agent; then
    say "stopping the agent already running (process $pid)"
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 1; done
  fi
done

# Pairing: the first run saves the URL in its state directory (~/.sms-gateway-agent/<device id>,
# readable by this user only) and goes on running. The URL reaches it in its environment, never
# on its command line.
mkdir -p "$STATE"
chmod 700 "$STATE"
termux-wake-lock || say 'termux-wake-lock failed: acquire the wake lock from the Termux notification'
start=1
if [ -f "$LOG" ]; then start=$(($(wc -c <"$LOG") + 1)); fi
SMS_GATEWAY_AGENT_PAIRING=$pairing nohup sms-gateway-agent --backend termux >>"$LOG" 2>&1 </dev/null &
agent=$!

mkdir -p "$HOME/.termux/boot"
cat > ~/.termux/boot/sms-gateway-agent <<'EOF'
#!/data/data/com.termux/files/usr/bin/sh
termux-wake-lock
exec sms-gateway-agent >> ~/.sms-gateway-agent/agent.log 2>&1
EOF
chmod +x ~/.termux/boot/sms-gateway-agent

# Up to a minute for the agent to reach the gateway; it keeps trying after that on its own.
waited=0
while :; do
  if tail -c "+$start" "$LOG" | grep -q 'connected to the gateway'; then
    say "paired and connected (process $agent, log $LOG)"
    break
  fi
  if ! kill -0 "$agent" 2>/dev/null; then
    tail -c "+$start" "$LOG" >&2
    fail "the agent stopped; its output is above (and in $LOG)"
  fi
  if tail -c "+$start" "$LOG" | grep -q 'refused the credentials'; then
    kill "$agent" 2>/dev/null || true
    fail 'the gateway refused the token: take a new pairing URL ("New token" on the device page)'
  fi
  if [ "$waited" -ge 60 ]; then
    say "not connected yet after a minute; the agent keeps trying: see $LOG"
    break
  fi
  sleep 1
  waited=$((waited + 1))
done
# The boot script starts the one device saved here; a phone paired before as another device has two.
saved=$(find "$STATE" -maxdepth 2 -name device.json | wc -l)
if [ "$saved" -gt 1 ]; then
  say "$saved paired devices are saved under $STATE: the boot script starts none of them until the state directory of each one no longer used is deleted"
fi
say 'after a reboot Termux:Boot starts it (open the Termux:Boot app once); grant the SMS permissions when Termux:API asks (docs/agent-termux.md, section 2)'
