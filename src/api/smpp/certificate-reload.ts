// SMPP over TLS on a renewed certificate: SMPP_TLS_CERT and SMPP_TLS_KEY are read again and the
// new pair is served to new connections when it is good; else the old one stays and the log says
// why, naming the variables. Files holding the pair served already change nothing, and the log
// says so. Sessions already open keep theirs.
import type { Logger } from '../../common/logger.ts';
import { readCertificatePair } from '../../tls/certificate-pair.ts';
import type { ReloadOutcome } from '../../tls/certificate-reloader.ts';
import type { SmppListener } from './listener.ts';

export function reloadSmppCertificate(files: { certFile: string; keyFile: string }, listener: SmppListener, logger: Logger, reason: string): ReloadOutcome {
  const reading = readCertificatePair(files);
  if ('problems' in reading) {
    logger.warn({ reason, problems: reading.problems.map((problem) => problem.replace(/\bTLS_(CERT|KEY)\b/g, 'SMPP_TLS_$1')) }, 'SMPP certificate not reloaded; the old one is served');
    return 'refused';
  }
  const served = { reason, subject: reading.pair.subject, notAfter: reading.pair.notAfter, fingerprint: reading.pair.fingerprint };
  const outcome = listener.serveCertificate(reading.pair);
  if (outcome !== 'applied') {
    logger.info(served, 'SMPP certificate unchanged');
    return 'unchanged';
  }
  logger.info(served, 'SMPP certificate reloaded');
  return 'applied';
}
