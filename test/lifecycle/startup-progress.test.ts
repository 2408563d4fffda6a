// What a newcomer sees on the first start: the migrations announce themselves one by one (the first
// start runs them all, up to a minute on a slow disk), and a port already taken (1883 by a local
// Mosquitto, often) stops the start before any of that, naming the variable to change. A real
// gateway on a new embedded database, its log lines read as they are written.
import { mkdtemp, rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { migrations } from '../../db/migrations/index.ts';
import type { Config } from '../../src/config.ts';
import { startGateway } from '../support/gateway.ts';

/** A log destination that keeps each line's msg. */
function logRecorder(): { stream: Writable; messages: string[] } {
  const messages: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.startsWith('{')) messages.push(String(JSON.parse(line).msg));
      done();
    },
  });
  return { stream, messages };
}

// A new embedded database in a new data directory, as a newcomer's first start has: every migration
// runs. (Not one in memory: those after the first of a process start from a copy already migrated.)
function newDatabase(dataDir: string): Partial<Config> {
  return { databaseUrl: undefined, dataDir, logLevel: 'info' };
}

describe('the first start: progress and ports', function () {
  this.timeout(120_000);

  describe('when the database is new', () => {
    it('then every migration is logged as it starts, numbered, in order, before the gateway listens', async () => {
      const log = logRecorder();
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'first-start-'));
      const gateway = await startGateway(newDatabase(dataDir), undefined, log.stream);
      try {
        const total = migrations.length;
        const progress = log.messages.filter((msg) => msg.startsWith('migrating the database'));
        expect(progress).to.deep.equal([
          `migrating the database: ${total} migrations to run`,
          ...migrations.map(([name], index) => `migrating the database (${index + 1}/${total}): ${name}`),
        ]);
        expect(log.messages.indexOf(progress.at(-1)!)).to.be.below(log.messages.indexOf('gateway listening'));
      } finally {
        await gateway.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });

  const settings: [variable: string, config: (port: number) => Partial<Config>][] = [
    ['MQTT_PORT', (port) => ({ mqttPort: port })],
    ['PORT', (port) => ({ port })],
    ['SMPP_PORT', (port) => ({ smpp: { port, tls: undefined, enquireLinkMs: 30_000, receiptRetentionMs: 86_400_000 } })],
  ];
  for (const [variable, config] of settings) {
    describe(`when ${variable}'s port is already taken`, () => {
      it(`then the start stops before the database is migrated, naming ${variable}`, async () => {
        const taken = net.createServer();
        await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
        const port = (taken.address() as AddressInfo).port;
        const log = logRecorder();
        const dataDir = await mkdtemp(path.join(os.tmpdir(), 'first-start-'));
        try {
          const refusal = await startGateway({ ...newDatabase(dataDir), ...config(port) }, undefined, log.stream).then(
            async (gateway) => {
              await gateway.stop();
              throw new Error('the gateway started on a taken port');
            },
            (error: unknown) => error as Error,
          );
          expect(refusal.message).to.equal(`${variable} ${port} is already in use on 127.0.0.1: stop what is using it or choose another ${variable}`);
          // Reported before the slow part: nothing was migrated.
          expect(log.messages.filter((msg) => msg.startsWith('migrating the database') || msg === 'database migrated')).to.deep.equal([]);
        } finally {
          await new Promise((resolve) => taken.close(resolve));
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    });
  }
});
