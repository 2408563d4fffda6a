// The Kubernetes deployment (deploy/kubernetes, docs/deployment.md "Kubernetes") as it is shipped.
// There is no cluster nor kubectl here, so every object is checked against the Kubernetes API's
// own JSON schemas (kubernetes-models), and against what the gateway itself reads: the
// environment variables are run through src/config.ts, the probes name its health endpoints, the
// ports are the ones its settings open, and the grace period covers its drain on SIGTERM.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import * as apps from 'kubernetes-models/apps/v1';
import * as core from 'kubernetes-models/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import { loadConfig } from '../../src/config.ts';
import { DRAIN_TIMEOUT_MS } from '../../src/gateway.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { runTool } from './tools.ts';

const DIRECTORY = join(REPO_ROOT, 'deploy', 'kubernetes');
const KUSTOMIZATION = 'kustomization.yaml';
/** The template people copy and fill in; never applied by `kubectl apply -k`. */
const SECRET_TEMPLATE = 'secret.example.yaml';

/** Time a stopping node needs after the drain and the in-flight requests: closing phones and the database. */
const STOP_MARGIN_SECONDS = 5;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  [field: string]: unknown;
}

type Validator = new (data: never) => { validate(): void };

/** The API groups the manifests may use, by apiVersion; kinds are looked up in each. */
const API_GROUPS: Record<string, Record<string, unknown>> = {
  v1: core,
  'apps/v1': apps,
  'networking.k8s.io/v1': networking,
  'policy/v1': policy,
  'autoscaling/v2': autoscaling,
};

function validatorFor(object: K8sObject): Validator {
  const group = API_GROUPS[object.apiVersion];
  if (!group) throw new Error(`${object.kind} ${object.metadata?.name}: apiVersion ${object.apiVersion} is not one this test knows`);
  const model = group[object.kind];
  if (typeof model !== 'function') throw new Error(`${object.apiVersion} has no kind ${object.kind}`);
  return model as Validator;
}

function readYaml(file: string): unknown[] {
  const documents = parseAllDocuments(readFileSync(join(DIRECTORY, file), 'utf8'));
  return documents.map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
    return document.toJS();
  });
}

/** The filled-in copy of the template, with real secrets: ignored by git, and here. */
const FILLED_IN_SECRET = 'secret.yaml';

const yamlFiles = readdirSync(DIRECTORY).filter((file) => /\.ya?ml$/.test(file) && file !== FILLED_IN_SECRET).sort();
const kustomization = readYaml(KUSTOMIZATION)[0] as { namespace?: string; resources: string[]; images?: { name: string; newName?: string; newTag?: string }[] };
const objectsByFile = new Map<string, K8sObject[]>(yamlFiles.filter((file) => file !== KUSTOMIZATION).map((file) => [file, readYaml(file).filter((document) => document != null) as K8sObject[]]));
const objects = [...objectsByFile.values()].flat();

function only<T extends K8sObject>(kind: string, name?: string): T {
  const found = objects.filter((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).to.have.length(1);
  return found[0] as T;
}

interface Probe {
  httpGet?: { path: string; port: string | number };
  periodSeconds?: number;
  failureThreshold?: number;
}

interface Container {
  name: string;
  image: string;
  ports: { name: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; runAsNonRoot?: boolean; runAsUser?: number };
  volumeMounts?: { name: string; mountPath: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

interface Deployment extends K8sObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds?: number;
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
        containers: Container[];
        volumes?: { name: string; emptyDir?: unknown }[];
      };
    };
  };
}

interface Service extends K8sObject {
  spec: { type?: string; selector: Record<string, string>; ports: { name: string; port: number; targetPort: string | number }[] };
}

interface NetworkPolicy extends K8sObject {
  spec: { ingress: { from?: unknown[]; ports: { port: number | string }[] }[] };
}

interface Ingress extends K8sObject {
  spec: { rules: { host?: string; http: { paths: { path: string; backend: { service: { name: string; port: { name?: string; number?: number } } } }[] } }[] };
}

interface ConfigMap extends K8sObject {
  data: Record<string, string>;
}

interface Secret extends K8sObject {
  stringData: Record<string, string>;
}

describe('deployment: Kubernetes manifests (deploy/kubernetes)', () => {
  const deployment = () => only<Deployment>('Deployment');
  const gateway = () => deployment().spec.template.spec.containers[0]!;
  const configMap = () => only<ConfigMap>('ConfigMap');
  const secret = () => only<Secret>('Secret');

  /** What the gateway's process sees: the ConfigMap and the Secret through envFrom, then `env`. */
  function containerEnvironment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const source of gateway().envFrom ?? []) {
      if (source.configMapRef) {
        expect(source.configMapRef.name).to.equal(configMap().metadata.name);
        Object.assign(env, configMap().data);
      }
      if (source.secretRef) {
        expect(source.secretRef.name).to.equal(secret().metadata.name);
        Object.assign(env, secret().stringData);
      }
    }
    for (const variable of gateway().env ?? []) env[variable.name] = variable.value ?? 'from-the-pod';
    return env;
  }

  describe('files', () => {
    it('parses every YAML file, one or more objects each', () => {
      expect(yamlFiles).to.include.members([KUSTOMIZATION, SECRET_TEMPLATE, 'deployment.yaml', 'configmap.yaml']);
      for (const [file, found] of objectsByFile) expect(found, file).to.not.be.empty;
    });

    it('the kustomization applies every manifest but the Secret template, and names the image', () => {
      const manifests = yamlFiles.filter((file) => file !== KUSTOMIZATION && file !== SECRET_TEMPLATE);
      expect([...kustomization.resources].sort()).to.deep.equal(manifests);
      // Applying the template would overwrite the real Secret with placeholders.
      expect(kustomization.resources).to.not.include(SECRET_TEMPLATE);
      expect(kustomization.images?.map((image) => image.name)).to.include(gateway().image);
    });

    it('kubectl builds the kustomization into those objects, with the image named in it', async function () {
      this.timeout(30_000);
      // kubectl is no dependency of the project: where it is installed (its client alone, no
      // cluster), its own kustomize builds what `kubectl apply -k` would send.
      const built = await runTool('kubectl', ['kustomize', 'deploy/kubernetes']).catch((error: Error) => {
        if (/not installed/.test(error.message)) this.skip();
        throw error;
      });
      expect(built.code, built.stderr).to.equal(0);
      const sent = parseAllDocuments(built.stdout).map((document) => document.toJS() as K8sObject);
      const expected = kustomization.resources.flatMap((file) => objectsByFile.get(file)!);
      expect(sent.map((object) => `${object.kind}/${object.metadata.name}`).sort()).to.deep.equal(expected.map((object) => `${object.kind}/${object.metadata.name}`).sort());
      for (const object of sent) expect(() => new (validatorFor(object))(object as never).validate(), `${object.kind} ${object.metadata.name}`).to.not.throw();
      const image = kustomization.images!.find((candidate) => candidate.name === gateway().image)!;
      const pod = (sent.find((object) => object.kind === 'Deployment') as Deployment).spec.template.spec;
      expect(pod.containers[0]!.image).to.equal(`${image.newName}:${image.newTag}`);
    });
  });

  describe('Kubernetes API schemas', () => {
    it('every object is valid for its apiVersion and kind', () => {
      for (const object of objects) {
        const Model = validatorFor(object);
        expect(() => new Model(object as never).validate(), `${object.kind} ${object.metadata.name}`).to.not.throw();
      }
    });

    it('the schema check does catch a wrong field (it is not vacuous)', () => {
      const broken = structuredClone(deployment());
      (broken.spec.template.spec.containers[0]!.ports[0] as { containerPort: unknown }).containerPort = 'http';
      expect(() => new apps.Deployment(broken as never).validate()).to.throw(/containerPort/);
      const noSelector = structuredClone(deployment()) as { spec: Partial<Deployment['spec']> };
      delete noSelector.spec.selector;
      expect(() => new apps.Deployment(noSelector as never).validate()).to.throw(/selector/);
    });
  });

  describe("the gateway's own rules", () => {
    it('runs several replicas, selected by the labels of its own pods', () => {
      expect(deployment().spec.replicas).to.be.at.least(2);
      const labels = deployment().spec.template.metadata.labels;
      for (const [key, value] of Object.entries(deployment().spec.selector.matchLabels)) expect(labels[key], key).to.equal(value);
      for (const kind of ['Service', 'PodDisruptionBudget', 'NetworkPolicy']) {
        for (const object of objects.filter((candidate) => candidate.kind === kind)) {
          const spec = object.spec as { selector?: Record<string, string> | { matchLabels: Record<string, string> }; podSelector?: { matchLabels: Record<string, string> } };
          const selector = spec.podSelector?.matchLabels ?? (spec.selector && 'matchLabels' in spec.selector ? spec.selector.matchLabels : spec.selector) ?? {};
          expect(selector, `${kind} ${object.metadata.name}`).to.not.be.empty;
          for (const [key, value] of Object.entries(selector)) expect(labels[key], `${kind} ${object.metadata.name}: ${key}`).to.equal(value);
        }
      }
    });

    it('every environment variable is one src/config.ts reads, and every value passes its checks', () => {
      const env = containerEnvironment();
      // The placeholders people replace; a real key has this shape.
      env.WEBHOOK_SECRET_KEY = 'ab'.repeat(32);
      const read = new Set<string>();
      const recording = new Proxy(env, {
        get(target, name) {
          if (typeof name === 'string') read.add(name);
          return target[name as string];
        },
      });
      // Throws ConfigError naming any value the gateway would refuse at start.
      const config = loadConfig(recording);
      const unread = Object.keys(env).filter((name) => !read.has(name));
      expect(unread, 'variables the gateway does not read (renamed or misspelt?)').to.deep.equal([]);
      // What makes the process a node of the deployment rather than a gateway alone.
      expect(config.redisUrl, 'REDIS_URL').to.be.a('string');
      expect(config.databaseUrl, 'DATABASE_URL').to.be.a('string');
      expect(config.webhooks.secretKey, 'WEBHOOK_SECRET_KEY').to.not.equal(undefined);
    });

    it('the Secret template holds placeholders only, and no setting that is not secret', () => {
      const values = secret().stringData;
      expect(Object.keys(values)).to.include.members(['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY']);
      for (const [name, value] of Object.entries(values)) expect(value, name).to.contain('CHANGE_ME');
      for (const name of Object.keys(values)) expect(configMap().data, name).to.not.have.property(name);
    });

    it("the container ports are the ports the gateway's settings open", () => {
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      const ports = Object.fromEntries(gateway().ports.map((port) => [port.name, port.containerPort]));
      expect(ports).to.deep.equal({ http: config.port, mqtt: config.mqttPort, metrics: config.metrics.port, smpp: config.smpp.port, smtp: config.smtp.port });
      expect(config.plainMqtt, 'plain MQTT behind the balancer that ends TLS').to.equal(true);
      expect(config.tls, 'TLS ends at the balancers').to.equal(undefined);
    });

    it('/metrics is scraped on its own port, which no Service exposes and only the monitoring namespace may reach', () => {
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      expect(config.metrics.port, 'METRICS_PORT').to.be.a('number').and.not.equal(config.port);
      const annotations = deployment().spec.template.metadata.annotations ?? {};
      expect(annotations['prometheus.io/port']).to.equal(String(config.metrics.port));
      expect(annotations['prometheus.io/path']).to.equal('/metrics');
      for (const service of objects.filter((object) => object.kind === 'Service') as Service[]) {
        for (const port of service.spec.ports) {
          expect(port.targetPort, service.metadata.name).to.not.be.oneOf(['metrics', config.metrics.port!]);
          expect(port.port, service.metadata.name).to.not.equal(config.metrics.port);
        }
      }
      const rules = only<K8sObject & { spec: { ingress: { from?: unknown[]; ports: { port: number }[] }[] } }>('NetworkPolicy').spec.ingress;
      const opening = rules.filter((rule) => rule.ports.some((port) => port.port === config.metrics.port));
      expect(opening, 'rules that open the metrics port').to.have.length(1);
      expect(opening[0]!.from, 'who may reach the metrics port').to.deep.equal([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
    });

    it('every listener the settings turn on has a container port, a Service port and a NetworkPolicy rule; the metrics port none but its own', () => {
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      // Each listener the gateway opens with these settings, by its name in the manifests.
      const listeners: Record<string, number | undefined> = { http: config.port, mqtt: config.plainMqtt ? config.mqttPort : undefined, smpp: config.smpp.port, smtp: config.smtp.port };
      expect(config.smtp.domain, 'SMTP_DOMAIN, without which SMTP_PORT stops the gateway').to.be.a('string');
      expect(Object.values(listeners).every((port) => port !== undefined), 'the example turns HTTP, MQTT, SMPP and SMTP on').to.equal(true);
      const containerPorts = new Map(gateway().ports.map((port) => [port.name, port.containerPort]));
      const services = objects.filter((object) => object.kind === 'Service') as Service[];
      const servedNames = new Set(services.flatMap((service) => service.spec.ports.map((port) => port.targetPort)));
      const policy = only<NetworkPolicy>('NetworkPolicy');
      const openToAll = new Set(policy.spec.ingress.filter((rule) => rule.from === undefined).flatMap((rule) => rule.ports.map((port) => port.port)));
      for (const [name, port] of Object.entries(listeners)) {
        expect(containerPorts.get(name), `container port ${name}`).to.equal(port);
        expect(servedNames.has(name), `a Service sends to ${name}`).to.equal(true);
        expect(openToAll.has(port!), `the NetworkPolicy opens ${name} (${port})`).to.equal(true);
      }
      // Nothing open that no listener serves, and the metrics port only to the monitoring namespace.
      expect([...openToAll].sort()).to.deep.equal(Object.values(listeners).sort());
      expect(openToAll.has(config.metrics.port!)).to.equal(false);
    });

    it('the Ingress sends its host to the HTTP Service alone, never to the metrics port', () => {
      const ingress = only<Ingress>('Ingress');
      const http = only<Service>('Service', 'sms-gateway-http');
      const backends = ingress.spec.rules.flatMap((rule) => rule.http.paths.map((path) => path.backend.service));
      expect(backends).to.not.be.empty;
      for (const backend of backends) {
        expect(backend.name).to.equal(http.metadata.name);
        expect(http.spec.ports.find((port) => port.name === backend.port.name || port.port === backend.port.number)?.targetPort).to.equal('http');
      }
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      // The host people reach is PUBLIC_URL's, and /mqtt (WebSocket) goes with everything else.
      expect(ingress.spec.rules.map((rule) => rule.host)).to.deep.equal([new URL(config.publicUrl!).hostname]);
      expect(ingress.spec.rules[0]!.http.paths.map((path) => path.path)).to.deep.equal(['/']);
    });

    it('TRUSTED_PROXIES names balancers, not a pod network: plain MQTT from other pods is not cut off', () => {
      const raw = configMap().data.TRUSTED_PROXIES!;
      for (const entry of raw.split(',').map((part) => part.trim())) {
        const prefix = Number(entry.split('/')[1] ?? 32);
        // A /24 is one host's pod range in most clusters; a balancer's subnet or an IP pool of the
        // ingress controller's is no wider.
        expect(prefix, entry).to.be.at.least(24);
      }
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      // The example's own pod network is not: what the configmap.yaml comment promises.
      expect(config.trustedProxies.trusts('10.0.1.7'), 'an address of another range of the 10.0.0.0/16 the example replaced').to.equal(false);
    });

    it("the kustomization puts every object in one namespace, the one the docs' commands create and name", () => {
      // Without it, `kubectl apply -k` would put the objects in the context's default namespace,
      // apart from the Secret applied with -n.
      expect(kustomization.namespace).to.equal('sms-gateway');
      for (const file of ['README.md', 'docs/deployment.md', 'deploy/kubernetes/kustomization.yaml']) {
        const text = readFileSync(join(REPO_ROOT, file), 'utf8');
        const named = [...text.matchAll(/kubectl (?:create namespace|-n) ([\w.-]+)/g)].map((match) => match[1]);
        for (const namespace of named) expect(namespace, file).to.equal(kustomization.namespace);
      }
      const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
      expect(readme).to.include('kubectl create namespace sms-gateway');
    });

    it('readiness is /readyz, liveness and startup /healthz, on the HTTP port', () => {
      const container = gateway();
      expect(container.readinessProbe?.httpGet).to.deep.equal({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe?.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      expect(container.startupProbe?.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
    });

    it('runs as a user other than root, on a read-only root filesystem, with writable emptyDirs for DATA_DIR and /tmp', () => {
      const pod = deployment().spec.template.spec;
      const container = gateway();
      const nonRoot = container.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
      const user = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
      expect(nonRoot, 'runAsNonRoot').to.equal(true);
      // Numeric: the image's USER is a name, which the kubelet cannot check against root.
      expect(user, 'runAsUser').to.be.a('number').and.above(0);
      expect(container.securityContext?.allowPrivilegeEscalation).to.equal(false);
      expect(container.securityContext?.readOnlyRootFilesystem).to.equal(true);
      const dataDir = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) }).dataDir;
      const emptyDirs = new Set((pod.volumes ?? []).filter((volume) => volume.emptyDir !== undefined).map((volume) => volume.name));
      const writable = (container.volumeMounts ?? []).filter((mount) => emptyDirs.has(mount.name)).map((mount) => mount.mountPath);
      expect(writable).to.include.members([dataDir, '/tmp']);
      // The image's own DATA_DIR, where it keeps first-start.txt: the same place.
      expect(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8')).to.match(new RegExp(`^ENV DATA_DIR=${dataDir}$`, 'm'));
    });

    it('sets requests and a memory limit', () => {
      const resources = gateway().resources;
      expect(resources?.requests).to.have.keys('cpu', 'memory');
      expect(resources?.limits).to.have.property('memory');
    });

    it('the grace period covers the drain, the in-flight requests and the stop', () => {
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      // Without a drain the balancer would still send connections to a port that is closing.
      expect(config.shutdownDrainMs, 'SHUTDOWN_DRAIN').to.be.above(0);
      const readiness = gateway().readinessProbe!;
      // Out of rotation by the readiness probe alone before the drain ends.
      expect(config.shutdownDrainMs / 1000).to.be.at.least((readiness.periodSeconds ?? 10) * (readiness.failureThreshold ?? 3));
      const needed = (config.shutdownDrainMs + DRAIN_TIMEOUT_MS) / 1000 + STOP_MARGIN_SECONDS;
      expect(deployment().spec.template.spec.terminationGracePeriodSeconds ?? 30).to.be.at.least(needed);
    });

    it('the HTTP Service reaches the HTTP port; the MQTT LoadBalancer sends 8883 to the MQTT port', () => {
      const http = only<Service>('Service', 'sms-gateway-http');
      expect(http.spec.ports.map((port) => port.targetPort)).to.deep.equal(['http']);
      const mqtt = only<Service>('Service', 'sms-gateway-mqtt');
      expect(mqtt.spec.type).to.equal('LoadBalancer');
      expect(mqtt.spec.ports.map((port) => [port.port, port.targetPort])).to.deep.equal([[8883, 'mqtt']]);
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      // Pairing URLs name the balancer's TLS port.
      expect(config.mqttPublicUrl).to.include({ port: 8883, tls: true });
    });

    it('the nodes expect the PROXY protocol from the balancer on their MQTT listener', () => {
      const config = loadConfig({ ...containerEnvironment(), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) });
      // TRUSTED_PROXIES is what turns the PROXY header on: required from those addresses.
      expect(configMap().data.TRUSTED_PROXIES, 'TRUSTED_PROXIES').to.be.a('string').and.not.empty;
      expect(config.trustedProxies.any, 'TRUSTED_PROXIES parsed').to.equal(true);
      // A balancer's range, never everyone: a phone on the internet must not name its own address.
      expect(config.trustedProxies.trusts('203.0.113.7'), 'a public address').to.equal(false);
      const comment = readFileSync(join(DIRECTORY, 'service-mqtt.yaml'), 'utf8');
      expect(comment).to.match(/PROXY protocol/).and.match(/TRUSTED_PROXIES/);
    });

    it('a disruption takes one node at a time', () => {
      const budget = only<K8sObject & { spec: { maxUnavailable?: number } }>('PodDisruptionBudget');
      expect(budget.spec.maxUnavailable).to.equal(1);
    });
  });
});
