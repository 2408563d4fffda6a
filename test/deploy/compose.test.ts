// The multi-node deployment (docs/deployment.md) as it is shipped: docker-compose.yml read by
// the compose tool itself (Debian's docker-compose; `config` needs no Docker daemon) and
// deploy/cluster/haproxy.cfg checked by haproxy itself. What is asserted is what a node needs
// to join the others (the same database, Redis, prefix and webhook key; a name of its own), and
// what the balancer must do: end TLS and publish the API and MQTT over it only, check /readyz, hold no phone to a node,
// never cut a phone the gateway still considers alive.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_KEEPALIVE_SECONDS } from '../../broker/keepalive.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { directives, HAPROXY_CERT, HAPROXY_CFG, haproxyCertificate, readHaproxyConfig, seconds, section, withCertificate, type Section } from './haproxy-config.ts';
import { composePython, runTool } from './tools.ts';

interface ComposeService {
  image?: string;
  build?: { context: string };
  environment?: Record<string, string>;
  ports?: { published: number | string; target: number }[];
  volumes?: (Mount | string)[];
  networks?: Record<string, { ipv4_address?: string } | null>;
}

interface Mount {
  source?: string;
  target: string;
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** The gateway drops a phone silent for 1.5 times its keepalive (broker/keepalive.ts); a balancer must wait longer. */
const GATEWAY_SILENCE_LIMIT_SECONDS = 1.5 * MAX_KEEPALIVE_SECONDS;

describe('deployment: docker-compose.yml and deploy/cluster/haproxy.cfg', function () {
  this.timeout(30_000);

  const secrets = {
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    MQTT_PUBLIC_URL: 'mqtts://sms.example.com:8883',
  };
  // An empty env file: a developer's own .env must not decide what this test sees.
  const scratch = mkdtempSync(join(tmpdir(), 'sgw-compose-'));
  const emptyEnvFile = join(scratch, 'empty.env');
  writeFileSync(emptyEnvFile, '');
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** `docker-compose config` with only these variables set (the shell's own do not leak in). */
  function composeConfig(variables: Record<string, string>) {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? scratch, ...variables };
    return runTool('docker-compose', ['--env-file', emptyEnvFile, '-f', join(REPO_ROOT, 'docker-compose.yml'), 'config'], { env });
  }

  describe('docker-compose.yml', () => {
    let compose: ComposeFile;
    let gateways: [string, ComposeService][];

    before(async function () {
      const result = await composeConfig(secrets);
      expect(result.code, `docker-compose config refused the file:\n${result.stderr}`).to.equal(0);
      // Read back as JSON by the YAML module compose itself uses.
      const asJson = await runTool(composePython(), ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], { input: result.stdout });
      expect(asJson.code, asJson.stderr).to.equal(0);
      compose = JSON.parse(asJson.stdout) as ComposeFile;
      gateways = Object.entries(compose.services).filter(([, service]) => service.build?.context === REPO_ROOT.replace(/\/$/, ''));
    });

    it('when read by docker-compose, then it has PostgreSQL 16, Redis 7, the two nodes node-a and node-b built from this repository, and HAProxy', () => {
      expect(Object.keys(compose.services).sort()).to.deep.equal(['haproxy', 'node-a', 'node-b', 'postgres', 'redis']);
      expect(compose.services.postgres!.image).to.match(/^postgres:16(\b|$)/);
      expect(compose.services.redis!.image).to.match(/^redis:7(\b|$)/);
      expect(gateways.map(([name]) => name).sort()).to.deep.equal(['node-a', 'node-b']);
    });

    it('then each node has its own NODE_ID', () => {
      const ids = gateways.map(([, service]) => service.environment?.NODE_ID);
      expect(ids.every((id) => typeof id === 'string' && id.length > 0), JSON.stringify(ids)).to.equal(true);
      expect(new Set(ids).size).to.equal(gateways.length);
    });

    it('then every node has the same DATABASE_URL, REDIS_URL, REDIS_PREFIX and WEBHOOK_SECRET_KEY, naming the compose file\'s PostgreSQL and Redis', () => {
      const shared = ['DATABASE_URL', 'REDIS_URL', 'REDIS_PREFIX', 'WEBHOOK_SECRET_KEY'];
      const [[, first]] = gateways as [[string, ComposeService]];
      for (const name of shared) {
        expect(first.environment?.[name], name).to.be.a('string').and.not.equal('');
        for (const [node, service] of gateways) expect(service.environment?.[name], `${node} ${name}`).to.equal(first.environment![name]);
      }
      expect(first.environment!.WEBHOOK_SECRET_KEY).to.equal(secrets.WEBHOOK_SECRET_KEY);

      const database = new URL(first.environment!.DATABASE_URL!);
      const postgres = compose.services.postgres!.environment!;
      expect(database.hostname).to.equal('postgres');
      expect(decodeURIComponent(database.username)).to.equal(postgres.POSTGRES_USER);
      expect(decodeURIComponent(database.password)).to.equal(secrets.POSTGRES_PASSWORD).and.to.equal(postgres.POSTGRES_PASSWORD);
      expect(database.pathname).to.equal(`/${postgres.POSTGRES_DB}`);
      expect(new URL(first.environment!.REDIS_URL!).hostname).to.equal('redis');
    });

    it('then the nodes believe the client addresses HAProxy names (TRUSTED_PROXIES is its fixed address), and no one else', () => {
      const balancer = compose.services.haproxy!.networks?.default?.ipv4_address;
      expect(balancer, 'HAProxy has a fixed address').to.be.a('string');
      for (const [node, service] of gateways) expect(service.environment?.TRUSTED_PROXIES, node).to.equal(balancer);
    });

    it('then PostgreSQL keeps its data on a named volume', () => {
      const data = mounts(compose.services.postgres!).find((volume) => volume.target === '/var/lib/postgresql/data');
      expect(data?.source, 'a volume on /var/lib/postgresql/data').to.be.a('string');
      expect(Object.keys(compose.volumes ?? {})).to.include(data!.source);
    });

    it('then every node shares one volume for call recordings and one for MMS media (an upload to one node is read from another)', () => {
      // The image makes each mount point, owned by its user: a new volume starts as a copy of it.
      const made = /^RUN mkdir -p ([^\\&\n]+)/m.exec(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'))?.[1]?.trim().split(/\s+/) ?? [];
      for (const target of ['/app/data/recordings', '/app/data/media']) {
        expect(made, `the Dockerfile makes ${target}`).to.include(target.replace('/app/', ''));
        const sources = gateways.map(([node, service]) => {
          const mount = mounts(service).find((volume) => volume.target === target);
          expect(mount?.source, `${node}: a volume on ${target}`).to.be.a('string');
          return mount!.source;
        });
        expect(new Set(sources).size, `the nodes share the volume on ${target}`).to.equal(1);
        expect(Object.keys(compose.volumes ?? {})).to.include(sources[0]);
      }
    });

    it('then HAProxy publishes HTTPS on 443, the redirect on 80 and MQTT over TLS on 8883, and nothing else, with deploy/cluster/haproxy.cfg as its configuration', () => {
      const haproxy = compose.services.haproxy!;
      const published = (haproxy.ports ?? []).map((port) => `${port.published}:${port.target}`);
      expect(published.sort()).to.deep.equal(['443:443', '80:80', '8883:8883']);
      const config = mounts(haproxy).find((mount) => mount.target === '/usr/local/etc/haproxy/haproxy.cfg');
      expect(config?.source).to.equal(HAPROXY_CFG);
    });

    it('then HAProxy finds its certificate where the configuration reads it: deploy/cluster/certs mounted read-only on /etc/haproxy/certs', () => {
      const certs = mounts(compose.services.haproxy!).find((mount) => mount.target === '/etc/haproxy/certs');
      expect(certs?.source).to.equal(join(REPO_ROOT, 'deploy', 'cluster', 'certs').replace(/\/$/, ''));
      expect(HAPROXY_CERT.startsWith('/etc/haproxy/certs/')).to.equal(true);
    });

    it('then every node pairs phones to HAProxy\'s MQTT over TLS (MQTT_PUBLIC_URL from .env)', () => {
      for (const [node, service] of gateways) expect(service.environment?.MQTT_PUBLIC_URL, node).to.equal(secrets.MQTT_PUBLIC_URL);
    });

    it('then only the balancer is published: no node can be reached around it', () => {
      for (const [node, service] of gateways) expect(service.ports ?? [], node).to.deep.equal([]);
    });

    it('then the balancer sends to exactly the nodes of the compose file, HTTP to their port 3000 and MQTT to their 1883', () => {
      const sections = readHaproxyConfig();
      const nodes = gateways.map(([name]) => name).sort();
      expect(serverAddresses(backendOf(sections, '443'))).to.deep.equal(nodes.map((name) => `${name}:3000`));
      expect(serverAddresses(backendOf(sections, '8883'))).to.deep.equal(nodes.map((name) => `${name}:1883`));
    });

    for (const missing of ['WEBHOOK_SECRET_KEY', 'POSTGRES_PASSWORD', 'MQTT_PUBLIC_URL'] as const) {
      it(`when ${missing} is not set, then docker-compose refuses the file naming it`, async () => {
        const { [missing]: _left, ...rest } = secrets;
        const result = await composeConfig(rest);
        expect(result.code).to.not.equal(0);
        expect(result.stderr).to.contain(`set ${missing} in .env`);
      });
    }
  });

  describe('deploy/cluster/haproxy.cfg', () => {
    const sections = readHaproxyConfig();

    it('when checked by haproxy -c (with a test certificate in place of the mounted one), then it is valid, its only warnings the node names that resolve inside Docker alone', async () => {
      const { file } = haproxyCertificate(scratch);
      const checked = join(scratch, 'haproxy.cfg');
      writeFileSync(checked, withCertificate(readFileSync(HAPROXY_CFG, 'utf8'), file));
      const result = await runTool('haproxy', ['-c', '-f', checked]);
      const output = `${result.stdout}${result.stderr}`;
      expect(result.code, output).to.equal(0);
      expect(output).to.contain('Configuration file is valid');
      const warnings = output.split('\n').filter((line) => line.includes('[WARNING]'));
      for (const warning of warnings) expect(warning).to.match(/could not resolve address 'node-[a-z]+'/);
    });

    it('then HTTPS on 443 and MQTT on 8883 end TLS with the mounted certificate, and plain HTTP on 80 only redirects to HTTPS', () => {
      expect(directives(frontendOf(sections, '443'), 'bind')[0]).to.match(new RegExp(`^:443 ssl crt ${HAPROXY_CERT}( |$)`));
      expect(directives(frontendOf(sections, '8883'), 'bind')[0]).to.match(new RegExp(`^:8883 ssl crt ${HAPROXY_CERT}( |$)`));
      const plain = frontendOf(sections, '80');
      expect(directives(plain, 'http-request redirect')).to.deep.equal(['scheme https code 301']);
      expect(directives(plain, 'default_backend')).to.deep.equal([]);
    });

    it('then no frontend offers plain MQTT (a phone\'s token never crosses the network in clear)', () => {
      const binds = sections.filter((candidate) => candidate.kind === 'frontend').flatMap((frontend) => directives(frontend, 'bind'));
      expect(binds.filter((bind) => bind.startsWith(':1883'))).to.deep.equal([]);
    });

    it('then HTTP goes round robin to nodes checked with GET /readyz', () => {
      const http = backendOf(sections, '443');
      expect(directives(http, 'mode')).to.deep.equal(['http']);
      expect(directives(http, 'balance')).to.deep.equal(['roundrobin']);
      expect(directives(http, 'option httpchk')).to.deep.equal(['GET /readyz']);
      expect(directives(http, 'default-server')[0]).to.match(/(^| )check( |$)/);
    });

    it('then MQTT goes in TCP mode to the node with fewest connections, checked with the same node\'s GET /readyz on port 3000', () => {
      const mqtt = backendOf(sections, '8883');
      expect(directives(mqtt, 'mode')).to.deep.equal(['tcp']);
      expect(directives(mqtt, 'balance')).to.deep.equal(['leastconn']);
      expect(directives(mqtt, 'option httpchk')).to.deep.equal(['GET /readyz']);
      expect(directives(mqtt, 'default-server')[0]).to.match(/(^| )check port 3000( |$)/);
    });

    it('then a request a stopping node closed unanswered is sent again to another node only when it is a GET or HEAD (never a POST /sms twice)', () => {
      const http = backendOf(sections, '443');
      expect(directives(http, 'retry-on')).to.deep.equal(['conn-failure empty-response']);
      expect(directives(http, 'http-request disable-l7-retry')).to.deep.equal(['unless METH_GET']);
    });

    it('then HAProxy names each client to the nodes: X-Forwarded-For over HTTP, a PROXY v2 header on every MQTT connection', () => {
      expect(directives(backendOf(sections, '443'), 'option forwardfor')).to.have.length(1);
      const mqtt = backendOf(sections, '8883');
      const servers = mqtt.lines.filter((line) => line.startsWith('server ') || line.startsWith('default-server '));
      expect(servers.some((line) => /\bsend-proxy-v2\b/.test(line)), servers.join('\n')).to.equal(true);
    });

    it('then neither backend holds a client to a node (no stickiness: any node serves any phone)', () => {
      for (const backend of [backendOf(sections, '443'), backendOf(sections, '8883')]) {
        const sticky = backend.lines.filter((line) => /^(stick (on|match|store-request|store-response)|cookie|balance (source|hdr|uri|url_param|rdp-cookie)|hash-type) ?/.test(line));
        expect(sticky, backend.name).to.deep.equal([]);
      }
    });

    it(`then a phone silent for less than the gateway's own limit (${GATEWAY_SILENCE_LIMIT_SECONDS} s) is never cut by the balancer, over TCP or WebSocket`, () => {
      const mqttFrontend = frontendOf(sections, '8883');
      const mqtt = backendOf(sections, '8883');
      const http = backendOf(sections, '443');
      const timeouts = {
        'MQTT timeout client': directives(mqttFrontend, 'timeout client')[0],
        'MQTT timeout server': directives(mqtt, 'timeout server')[0],
        'WebSocket timeout tunnel': directives(http, 'timeout tunnel')[0],
      };
      for (const [what, time] of Object.entries(timeouts)) {
        expect(time, what).to.be.a('string');
        expect(seconds(time!), what).to.be.above(GATEWAY_SILENCE_LIMIT_SECONDS);
      }
    });
  });
});

/** A service's mounts; docker-compose 1.x prints them as "source:target:mode", 2.x as objects. */
function mounts(service: ComposeService): Mount[] {
  return (service.volumes ?? []).map((mount) => {
    if (typeof mount !== 'string') return mount;
    const [source, target] = mount.split(':');
    return { source, target: target ?? source! };
  });
}

/** The frontend that binds `port`. */
function frontendOf(sections: Section[], port: string): Section {
  const found = sections.filter((candidate) => candidate.kind === 'frontend' && directives(candidate, 'bind').some((bind) => bind.split(' ')[0]!.endsWith(`:${port}`)));
  if (found.length !== 1) throw new Error(`haproxy.cfg: ${found.length} frontends bind port ${port}, expected 1`);
  return found[0]!;
}

/** The backend the frontend on `port` sends to. */
function backendOf(sections: Section[], port: string): Section {
  const [name] = directives(frontendOf(sections, port), 'default_backend');
  if (!name) throw new Error(`haproxy.cfg: the frontend on port ${port} has no default_backend`);
  return section(sections, 'backend', name);
}

function serverAddresses(backend: Section): string[] {
  return directives(backend, 'server').map((server) => server.split(' ')[1]!).sort();
}
