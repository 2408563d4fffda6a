// The one line that installs the device agent in Termux from this gateway and pairs it
// (src/http/agent/install.sh). It carries the pairing URL, so it is shown only where the pairing
// URL is: when a token is issued.
//
// The URL is the script's argument rather than something the script asks for, so that pasting
// one line is the whole set-up. Pasted into Termux's shell (bash), a line lands in the history
// file with the token; `history -d -1` takes the line out of the history before bash writes the
// file (bash 5: -1 is the line running it, already in the history when it starts). It comes
// first so that the line's exit status is the installer's. Other shells print an error for it,
// sent to /dev/null, and keep the line. The script passes the URL on to the agent in its
// environment, never on a command line.
//
// The script is saved to a file and run from there, not piped into sh: when the download fails
// (a wrong address, a certificate curl does not trust, a 404) a pipe hands sh an empty script,
// which does nothing and exits 0, so the line looked as if it had installed; a download cut off
// halfway would run half a script. The line runs in a subshell, so that its `exit` and its clean-up
// of the file end that subshell and never the user's Termux session.

/** What the line says, after curl's own error, when the script did not download. */
export const INSTALLER_NOT_DOWNLOADED = 'sms-gateway-agent: the installer did not download (curl says why above); nothing was installed';

/** The install line for a gateway reached at `gateway` (http(s)://host[:port][/path]). */
export function agentInstallCommand(gateway: string, pairingUrl: string): string {
  return `history -d -1 2>/dev/null; ${downloadAndRun(gateway, ` ${shellQuoted(pairingUrl)}`)}`;
}

/**
 * Downloads the install script to a temporary file and runs it with `args`; exits non-zero with
 * a message when the download fails, else with the script's own status.
 */
function downloadAndRun(gateway: string, args: string): string {
  const script = shellQuoted(`${gateway}/agent/install.sh`);
  return `(f=$(mktemp) && trap 'rm -f "$f"' EXIT && curl -fsSL -o "$f" ${script} || { echo ${shellQuoted(INSTALLER_NOT_DOWNLOADED)} >&2; exit 1; }; sh "$f"${args})`;
}

/** One shell word, whatever it holds: single quotes, a quote written as '"'"'. */
export function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}
