import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, effectiveConfig, loadConfig } from '../../src/config/config.js';
import { closestMatch, editDistance } from '../../src/config/edit-distance.js';

const scratch = mkdtempSync(join(tmpdir(), 'ferry-config-'));
const pem = join(scratch, 'file.pem');
writeFileSync(pem, '-----BEGIN CERTIFICATE-----\n');

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('unknown FERRY_* variables', () => {
  it.each([
    ['FERRY_HTTP_PROT', 'FERRY_HTTP_PORT'],
    ['FERRY_LOGLEVEL', 'FERRY_LOG_LEVEL'],
    ['FERRY_METRIC_PORT', 'FERRY_METRICS_PORT'],
    ['FERRY_DELIVERY_THREAD', 'FERRY_DELIVERY_THREADS'],
    ['FERRY_KAFKA_BROKER', 'FERRY_KAFKA_BROKERS'],
  ])('%s stops the start with "did you mean %s?"', (typo, meant) => {
    expect(refusal({ [typo]: '1' })).toContain(`unknown variable ${typo} (did you mean ${meant}?)`);
  });

  it('names an unknown variable with nothing close, and every unknown one at once', () => {
    const message = refusal({ FERRY_SOMETHING_ELSE: 'x', FERRY_HOTS: 'y' });
    expect(message).toContain('unknown variable FERRY_SOMETHING_ELSE;');
    expect(message).toContain('unknown variable FERRY_HOTS (did you mean FERRY_HOST?)');
    expect(message).not.toContain('\n');
  });

  it('knows the distributed variables on the embedded backend too, and leaves other names alone', () => {
    expect(loadConfig({ FERRY_KAFKA_TOPIC: 't', FERRY_SHARDS: '3', NODE_ENV: 'x', ferry_lowercase: 'y' }).distributed).toBeNull();
  });

  it('refuses names the test runner uses for itself: they are not settings of the product', () => {
    expect(refusal({ FERRY_TEST_BACKEND: 'cassandra' })).toContain('unknown variable FERRY_TEST_BACKEND');
  });
});

describe('files named by the configuration', () => {
  const missing = join(scratch, 'missing.pem');

  it.each([
    [{ FERRY_TLS_CERT_FILE: missing, FERRY_TLS_KEY_FILE: pem }, `FERRY_TLS_CERT_FILE=${missing}: the file does not exist`],
    [{ FERRY_TLS_CERT_FILE: pem, FERRY_TLS_KEY_FILE: missing }, `FERRY_TLS_KEY_FILE=${missing}: the file does not exist`],
    [{ FERRY_DELIVERY_CA_FILE: scratch }, `FERRY_DELIVERY_CA_FILE=${scratch}: the file is not a file`],
    [{ FERRY_BACKEND: 'cassandra', FERRY_CASSANDRA_TLS: 'true', FERRY_CASSANDRA_CA_FILE: missing }, `FERRY_CASSANDRA_CA_FILE=${missing}`],
    [{ FERRY_BACKEND: 'cassandra', FERRY_KAFKA_TLS: 'true', FERRY_KAFKA_CA_FILE: missing }, `FERRY_KAFKA_CA_FILE=${missing}`],
  ])('a missing or unreadable file is refused at load, naming the variable and the path (%#)', (env, message) => {
    expect(refusal(env)).toContain(message);
  });

  it('takes readable files', () => {
    const config = loadConfig({ FERRY_TLS_CERT_FILE: pem, FERRY_TLS_KEY_FILE: pem, FERRY_DELIVERY_CA_FILE: pem });
    expect(config.tls).toEqual({ certFile: pem, keyFile: pem });
    expect(config.delivery.caFile).toBe(pem);
  });
});

describe('log and metrics settings', () => {
  it('default to info, metrics on, served on the HTTP port', () => {
    const config = loadConfig({});
    expect(config.log.level).toBe('info');
    expect(config.metrics).toEqual({ enabled: true, port: null });
  });

  it('take every level, a port of their own (0 = any free port) and metrics off', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
      expect(loadConfig({ FERRY_LOG_LEVEL: level }).log.level).toBe(level);
    }
    expect(loadConfig({ FERRY_METRICS_PORT: '9464' }).metrics.port).toBe(9464);
    expect(loadConfig({ FERRY_METRICS_PORT: '0' }).metrics.port).toBe(0);
    expect(loadConfig({ FERRY_METRICS_ENABLED: 'false' }).metrics.enabled).toBe(false);
  });

  it.each([
    [{ FERRY_LOG_LEVEL: 'verbose' }, 'FERRY_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'],
    [{ FERRY_METRICS_PORT: '70000' }, 'FERRY_METRICS_PORT must be an integer from 0 to 65535'],
    [{ FERRY_METRICS_ENABLED: 'yes' }, 'FERRY_METRICS_ENABLED must be true or false'],
    [{ FERRY_METRICS_PORT: '8080' }, 'FERRY_METRICS_PORT=8080 is also FERRY_HTTP_PORT'],
    [{ FERRY_GRPC_PORT: '8080' }, 'FERRY_GRPC_PORT=8080 is also FERRY_HTTP_PORT'],
  ])('refuses a wrong value (%#)', (env, message) => {
    expect(refusal(env)).toContain(message);
  });

  it('lets every listener pick any free port', () => {
    expect(() => loadConfig({ FERRY_HTTP_PORT: '0', FERRY_GRPC_PORT: '0', FERRY_METRICS_PORT: '0' })).not.toThrow();
  });
});

describe('FERRY_CORS_ORIGINS', () => {
  it('is off unless set', () => {
    expect(loadConfig({}).cors).toBeNull();
    expect(loadConfig({ FERRY_CORS_ORIGINS: '' }).cors).toBeNull();
  });

  it('keeps each origin as a browser spells it in Origin', () => {
    expect(loadConfig({ FERRY_CORS_ORIGINS: 'https://app.example.com, HTTPS://Admin.Example.com:443/, http://localhost:5173' }).cors).toEqual({
      anyOrigin: false,
      origins: ['https://app.example.com', 'https://admin.example.com', 'http://localhost:5173'],
    });
    expect(loadConfig({ FERRY_CORS_ORIGINS: '*' }).cors).toEqual({ anyOrigin: true, origins: [] });
  });

  it.each(['app.example.com', 'https://app.example.com/console', 'https://app.example.com?x=1', 'ftp://app.example.com', 'https://user@app.example.com'])(
    'refuses %s, which is not an origin',
    (value) => {
      expect(refusal({ FERRY_CORS_ORIGINS: value })).toContain(`FERRY_CORS_ORIGINS: "${value}" is not an origin`);
    },
  );

  it('refuses * beside a list', () => {
    expect(refusal({ FERRY_CORS_ORIGINS: '*, https://app.example.com' })).toBe('FERRY_CORS_ORIGINS takes * alone or a list of origins, not both');
  });
});

describe('FERRY_ADDRESS_MAP', () => {
  const distributed = (map?: string) => loadConfig({ FERRY_BACKEND: 'cassandra', ...(map !== undefined ? { FERRY_ADDRESS_MAP: map } : {}) }).distributed!;

  it('maps nothing unless set, and the same map for Cassandra and Kafka when set', () => {
    expect(distributed().cassandra.addressMap.size).toBe(0);
    const d = distributed(' 10.0.0.1:9042=127.0.0.1:41001, broker-1.internal:9092=proxy.example.com:19092,[fd00::1]:9042=[::1]:41002 ');
    expect([...d.cassandra.addressMap]).toEqual([
      ['10.0.0.1:9042', '127.0.0.1:41001'],
      ['broker-1.internal:9092', 'proxy.example.com:19092'],
      ['[fd00::1]:9042', '[::1]:41002'],
    ]);
    expect(d.kafka.addressMap).toBe(d.cassandra.addressMap);
  });

  it.each(['10.0.0.1:9042', '10.0.0.1=127.0.0.1:41001', '10.0.0.1:9042=127.0.0.1', 'a:1=b:2=c:3', '10.0.0.1:9042=fd00::1:9042'])('refuses %s', (pair) => {
    expect(refusal({ FERRY_BACKEND: 'cassandra', FERRY_ADDRESS_MAP: pair })).toBe(
      `FERRY_ADDRESS_MAP must be comma-separated host:port=host:port pairs, got "${pair}"`,
    );
  });

  it('refuses an address mapped twice', () => {
    expect(refusal({ FERRY_BACKEND: 'cassandra', FERRY_ADDRESS_MAP: 'a:1=b:2,a:1=c:3' })).toBe('FERRY_ADDRESS_MAP names a:1 twice');
  });
});

describe('effectiveConfig', () => {
  it('shows every variable with its value and source, secrets masked', () => {
    const shown = effectiveConfig({
      FERRY_BACKEND: 'cassandra',
      FERRY_CASSANDRA_PASSWORD: 'cassandra-secret',
      FERRY_KAFKA_SASL_MECHANISM: 'plain',
      FERRY_KAFKA_SASL_PASSWORD: 'kafka-secret',
      FERRY_HTTP_PORT: '9000',
    });
    expect(Object.keys(shown)).toEqual(CONFIG_VARIABLES.map((v) => v.name));
    expect(shown.FERRY_HTTP_PORT).toEqual({ value: '9000', source: 'environment' });
    expect(shown.FERRY_GRPC_PORT).toEqual({ value: '8081', source: 'default' });
    expect(shown.FERRY_TLS_CERT_FILE).toEqual({ value: null, source: 'default' });
    expect(shown.FERRY_CASSANDRA_PASSWORD).toEqual({ value: '********', source: 'environment' });
    expect(shown.FERRY_KAFKA_SASL_PASSWORD).toEqual({ value: '********', source: 'environment' });
    expect(JSON.stringify(shown)).not.toMatch(/cassandra-secret|kafka-secret/);
  });

  it('masks every secret variable', () => {
    const secrets = CONFIG_VARIABLES.filter((v) => 'secret' in v).map((v) => v.name);
    expect(secrets).toEqual(expect.arrayContaining(['FERRY_CASSANDRA_PASSWORD', 'FERRY_KAFKA_SASL_PASSWORD']));
    const shown = effectiveConfig(Object.fromEntries(secrets.map((name) => [name, 'plain-text-secret'])));
    for (const name of secrets) expect(shown[name].value).toBe('********');
  });

  it('refuses what loadConfig refuses', () => {
    expect(() => effectiveConfig({ FERRY_HTTP_PROT: '1' })).toThrow(/did you mean FERRY_HTTP_PORT/);
  });
});

describe('editDistance', () => {
  it.each([
    ['PORT', 'PORT', 0],
    ['PROT', 'PORT', 1],
    ['HTTP_PORT', 'HTTP_PORTS', 1],
    ['HOST', 'HOTS', 1],
    ['HOST', 'PORT', 2],
    ['', 'ABC', 3],
  ])('%s → %s is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });

  it('suggests only a near match', () => {
    expect(closestMatch('PORT', ['HOST', 'HTTP_PORT'])).toBeUndefined();
    expect(closestMatch('serv', ['serve', 'migrate'])).toBe('serve');
  });
});
