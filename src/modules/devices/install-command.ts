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

/** The install line for a gateway reached at `gateway` (http(s)://host[:port][/path]). */
export function agentInstallCommand(gateway: string, pairingUrl: string): string {
  return `history -d -1 2>/dev/null; curl -fsSL ${shellQuoted(`${gateway}/agent/install.sh`)} | sh -s -- ${shellQuoted(pairingUrl)}`;
}

/** One shell word, whatever it holds: single quotes, a quote written as '"'"'. */
export function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}
