// A gateway that runs for months must say, without anyone reloading it, that its certificate is
// about to end: the periodic check reads the files again and warns, at most once a day, when
// nothing renewed a certificate that ends within 14 days.
import { expect } from 'chai';
import { Metrics } from '../../src/common/metrics.ts';
import { createLogger } from '../../src/common/logger.ts';
import { readCertificatePair } from '../../src/tls/certificate-pair.ts';
import { CertificateReloader } from '../../src/tls/certificate-reloader.ts';
import { certificateDirectory, makeCertificate } from './tls-support.ts';
import { eventually } from '../support/eventually.ts';

describe('TLS: the periodic certificate check', function () {
  this.timeout(20_000);
  const files = certificateDirectory();
  after(() => files.remove());

  it('when the certificate ends within 14 days and is not renewed, then the check warns once a day, not at every look', async () => {
    // makeCertificate's certificates are valid for one day.
    const certificate = makeCertificate(files.directory, 'short', 'short.localhost');
    const reading = readCertificatePair(certificate);
    if (!('pair' in reading)) throw new Error('the test certificate did not read as a pair');
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }, undefined, 'json');
    let now = Date.now();
    const reloader = new CertificateReloader(certificate, reading.pair, logger, new Metrics(), { checkEveryMs: 20, now: () => now });
    try {
      const loadWarnings = lines.filter((line) => line.level === 40).length;
      expect(loadWarnings, 'the load itself warns').to.equal(1);
      reloader.watch();
      await eventually('five periodic looks', () => lines.filter((line) => line.msg === 'TLS certificate unchanged').length >= 5);
      const notRenewed = lines.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('TLS certificate not renewed'));
      // The load's warning counts as the day's: the next is due a day later.
      expect(notRenewed).to.have.length(0);
      now += 86_400_000;
      await eventually('the next day\'s warning', () => lines.some((line) => typeof line.msg === 'string' && line.msg.startsWith('TLS certificate not renewed')));
      const warned = lines.find((line) => typeof line.msg === 'string' && line.msg.startsWith('TLS certificate not renewed'))!;
      expect(warned.level).to.equal(40);
      // A day later the one-day certificate has ended: the warning says so.
      expect(warned.msg).to.match(/EXPIRED|expires in 0 days/);
      const looksBefore = lines.filter((line) => line.msg === 'TLS certificate unchanged').length;
      await eventually('five more looks', () => lines.filter((line) => line.msg === 'TLS certificate unchanged').length >= looksBefore + 5);
      expect(lines.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('TLS certificate not renewed'))).to.have.length(1);
    } finally {
      reloader.close();
    }
  });
});
