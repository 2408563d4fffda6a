// The fleet's health on /metrics: fleet_sims{account, state} counts each account's SIMs the health
// checks know of (a sim_health row), degraded (degraded_since set) or healthy, read from the rows
// at scrape time. Labelled by account only, never by device; SIMs of deleted devices are left out.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { scrapeMetrics } from '../support/metrics.ts';
import { degradeSim, healthySim, recoverSim } from '../support/test-data.ts';

interface Sample {
  labels: Record<string, string>;
  value: number;
}

function fleetSims(page: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of page.split('\n')) {
    const match = /^fleet_sims\{(.*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of match[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!;
    samples.push({ labels, value: Number(match[2]) });
  }
  return samples;
}

describe('metrics: SIMs by health per account', () => {
  const fx = useGateway();

  async function sim(deviceId: string, slot: number, degraded: boolean): Promise<void> {
    if (degraded) await degradeSim(fx, deviceId, slot, 'send', 'canaries to two receivers failed');
    else await healthySim(fx, deviceId, slot);
  }

  it('counts degraded and healthy SIMs per account, 0 included, with no device label', async () => {
    const { device: one } = await fx.registerDevice('one');
    const { device: two } = await fx.registerDevice('two');
    const { device: gone } = await fx.registerDevice('gone');
    await sim(one.id, 0, true);
    await sim(one.id, 1, false);
    await sim(two.id, 0, false);
    await sim(gone.id, 0, true);
    expect((await fx.tenant.api.delete(`/devices/${gone.id}`)).status).to.equal(204);
    const other = await fx.newTenant();
    const { device: theirs } = await fx.registerDevice('theirs', other);
    await sim(theirs.id, 0, false);

    const response = await scrapeMetrics(fx.baseUrl);
    expect(response.status).to.equal(200);
    const page = await response.text();
    expect(page).to.match(/^# TYPE fleet_sims gauge$/m);
    const samples = fleetSims(page);
    const of = (account: string, state: string) => samples.find((sample) => sample.labels.account === account && sample.labels.state === state)?.value;
    expect(of(fx.tenant.accountId, 'degraded'), 'the deleted device\'s SIM is not counted').to.equal(1);
    expect(of(fx.tenant.accountId, 'healthy')).to.equal(2);
    expect(of(other.accountId, 'healthy')).to.equal(1);
    expect(of(other.accountId, 'degraded'), 'shown as 0, not absent').to.equal(0);
    for (const sample of samples) expect(Object.keys(sample.labels)).to.not.include.members(['device', 'device_id']);

    // Recovery moves the SIM from one state to the other at the next scrape.
    await recoverSim(fx, one.id, 0);
    const after = fleetSims(await (await scrapeMetrics(fx.baseUrl)).text());
    expect(after.find((sample) => sample.labels.account === fx.tenant.accountId && sample.labels.state === 'degraded')?.value).to.equal(0);
    expect(after.find((sample) => sample.labels.account === fx.tenant.accountId && sample.labels.state === 'healthy')?.value).to.equal(3);
  });
});
