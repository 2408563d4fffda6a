// What every drill needs besides its own scenario: settings read from the environment (a bad
// value ends the drill with its FAIL line), and a steady stream of SMS posted through the API.

/** A numeric setting; out of range or not a number: the drill fails at once, naming the variable. */
export function readNumber(drill: string, name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    console.log(`DRILL ${drill}: FAIL ${name} must be a number from ${min} to ${max}, got "${raw}"`);
    process.exit(1);
  }
  return value;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SmsLoad {
  /** Ids of the SMS the gateway accepted (201), in order. */
  accepted: string[];
  /** Posts not accepted, by HTTP status, "timeout" or "network error". */
  refused: Map<string, number>;
  refusedTotal(): number;
  /** Stops posting and waits for the posts under way. */
  stop(): Promise<void>;
}

/**
 * Posts one SMS every 1/rate s through POST /sms until stopped. Paced against the clock, so a
 * slow moment does not lower the rate; a post taking longer than `timeoutMs` counts as refused
 * (the client would have given up).
 */
export function startSmsLoad(options: { apiUrl: string; key: string; rate: number; timeoutMs: number }): SmsLoad {
  const accepted: string[] = [];
  const refused = new Map<string, number>();
  const refuse = (reason: string) => refused.set(reason, (refused.get(reason) ?? 0) + 1);
  const inFlight = new Set<Promise<void>>();
  let sequence = 0;
  const post = async () => {
    const n = ++sequence;
    try {
      const response = await fetch(`${options.apiUrl}/sms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: '+79161234567', message: `drill ${n}` }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const body = (await response.json().catch(() => ({}))) as { id?: string };
      if (response.status === 201 && body.id) accepted.push(body.id);
      else refuse(String(response.status));
    } catch (error) {
      refuse((error as Error).name === 'TimeoutError' ? 'timeout' : 'network error');
    }
  };
  const started = Date.now();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const due = Math.floor(((Date.now() - started) / 1000) * options.rate);
      while (sequence < due) {
        const request = post().finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      await sleep(5);
    }
  })();
  return {
    accepted,
    refused,
    refusedTotal: () => [...refused.values()].reduce((sum, n) => sum + n, 0),
    stop: async () => {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/**
 * Runs a drill's body and ends the process with its verdict: the body prints its own PASS line
 * and answers nothing, or answers why it failed. A body that throws, or one still running at the
 * deadline, fails too: a drill always stops by itself.
 */
export function runDrill(name: string, deadlineMs: number, body: () => Promise<string | undefined>): void {
  setTimeout(() => {
    console.log(`DRILL ${name}: FAIL did not finish within ${Math.round(deadlineMs / 1000)} s`);
    process.exit(1);
  }, deadlineMs).unref();
  body().then(
    (failure) => {
      if (failure) console.log(`DRILL ${name}: FAIL ${failure}`);
      process.exit(failure ? 1 : 0);
    },
    (error: unknown) => {
      console.log(`DRILL ${name}: FAIL ${(error as Error).message}`);
      process.exit(1);
    },
  );
}

