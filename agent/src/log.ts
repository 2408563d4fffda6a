// The agent's log: one line per event on stderr, as text for a person or JSON for a collector.
// Nothing logged carries message text or a whole phone number.
export interface AgentLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: AgentLogger = { info() {}, warn() {}, error() {} };

export function consoleLogger(options: { json: boolean; prefix?: string; write?: (line: string) => void }): AgentLogger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const line = (level: string, message: string, fields: Record<string, unknown> = {}) => {
    const all = options.prefix ? { device: options.prefix, ...fields } : fields;
    if (options.json) return write(JSON.stringify({ time: new Date().toISOString(), level, message, ...all }));
    const extra = Object.entries(all).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    write(`${new Date().toISOString()} ${level} ${message}${extra.length ? ` ${extra.join(' ')}` : ''}`);
  };
  return {
    info: (message, fields) => line('info', message, fields),
    warn: (message, fields) => line('warn', message, fields),
    error: (message, fields) => line('error', message, fields),
  };
}

/** A phone number as logs may show it: the last three digits only. */
export function maskPhone(phone: string): string {
  return phone.length <= 3 ? '***' : `***${phone.slice(-3)}`;
}
