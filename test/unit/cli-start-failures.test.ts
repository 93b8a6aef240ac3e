import { describe, expect, it } from 'vitest';
import { DataDirInUse } from '../../src/adapters/embedded/data-dir-lock.js';
import { startFailure } from '../../src/cli/serve-command.js';
import { loadConfig } from '../../src/config/config.js';

const config = loadConfig({ FERRY_HOST: '10.1.2.3', FERRY_HTTP_PORT: '8080', FERRY_GRPC_PORT: '8081', FERRY_METRICS_PORT: '9464' });

function systemError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(`${String(fields.syscall)} ${String(fields.code)}`), fields);
}

describe('start-up failures of serve', () => {
  it.each([
    [{ code: 'EADDRINUSE', syscall: 'listen', port: 8080, address: '10.1.2.3' }, 'FERRY_HTTP_PORT=8080: the port is already in use on 10.1.2.3'],
    [{ code: 'EADDRINUSE', syscall: 'listen', port: 8081, address: '10.1.2.3' }, 'FERRY_GRPC_PORT=8081: the port is already in use on 10.1.2.3'],
    [{ code: 'EADDRINUSE', syscall: 'listen', port: 9464, address: '10.1.2.3' }, 'FERRY_METRICS_PORT=9464: the port is already in use on 10.1.2.3'],
    [{ code: 'EACCES', syscall: 'listen', port: 8080, address: '10.1.2.3' }, 'FERRY_HTTP_PORT=8080: not allowed to listen'],
    [{ code: 'EADDRNOTAVAIL', syscall: 'listen', port: 8080, address: '10.1.2.3' }, 'FERRY_HOST=10.1.2.3: not an address of this machine'],
    [{ code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: '10.1.2.3' }, 'FERRY_HOST=10.1.2.3: the host name does not resolve'],
  ])('%j becomes one line naming the variable and its value', (fields, message) => {
    expect(startFailure(systemError(fields), config)?.message).toContain(message);
  });

  it('names the holder of a data directory in use', () => {
    const err = new DataDirInUse('/srv/ferry', { pid: 42, host: 'box', since: '2030-01-01T00:00:00.000Z' });
    expect(startFailure(err, config)?.message).toBe(
      'data directory /srv/ferry is already served by process 42 on box, running since 2030-01-01T00:00:00.000Z; one server per data directory',
    );
  });

  it.each([
    [{ code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: 'cassandra.internal' }],
    [{ code: 'EADDRINUSE', syscall: 'connect', port: 8080 }],
    [{ code: 'EADDRINUSE', syscall: 'listen', port: 5555 }],
    [{ code: 'ECONNREFUSED', syscall: 'connect', port: 9042 }],
  ])('leaves an error that is not about its own listeners alone: %j', (fields) => {
    expect(startFailure(systemError(fields), config)).toBeNull();
  });
});
