// Opening the modem's serial port. The serialport package is optional (a phone running the agent
// under Termux has no use for it), so it is loaded only when a modem is actually opened.
import type { Duplex } from 'node:stream';

/** Opens the port at `path`; the stream must be readable and writable at once (a serial port is). */
export type OpenPort = (path: string, baudRate: number) => Promise<Duplex>;

export const openSerialPort: OpenPort = async (path, baudRate) => {
  let serialport: typeof import('serialport');
  try {
    serialport = await import('serialport');
  } catch {
    throw new Error(
      'the serialport package is not installed; install it beside the agent (npm install serialport) to use a modem',
    );
  }
  const port = new serialport.SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) => {
    port.open((error) => (error ? reject(new Error(`cannot open ${path}: ${error.message}`)) : resolve()));
  });
  // What the modem said to an earlier session (a late answer) must not be read as an answer now.
  await new Promise<void>((resolve) => port.flush(() => resolve()));
  return port;
};

/** Closes a port stream; a port that does not confirm within the time is left to the OS. */
export async function closePort(stream: Duplex, timeoutMs = 2000): Promise<void> {
  if (stream.destroyed) return;
  stream.on('error', () => {
    // A port that fails while closing is closed enough.
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    // A serial port must really be closed (destroy alone can leave its lock held, and a reopening
    // then fails with "Cannot lock port"); any other stream is destroyed.
    const closable = stream as Duplex & { close?: (callback: (error?: Error | null) => void) => void; isOpen?: boolean };
    if (typeof closable.close === 'function' && closable.isOpen !== false) closable.close(() => done());
    else {
      stream.once('close', done);
      stream.destroy();
    }
  });
  if (!stream.destroyed) stream.destroy();
}
