import { describe, expect, it } from 'vitest';
import { FerryError } from '../../src/domain/errors.js';
import { ApiCallGate } from '../../src/edge/health/call-gate.js';
import { served } from '../../src/edge/server.js';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';

describe('ApiCallGate', () => {
  function service() {
    const releases: Array<() => void> = [];
    const impl = {
      getRequest: () => new Promise((resolve) => releases.push(() => resolve({}))),
    } as unknown as Parameters<typeof served<typeof RequestService>>[1];
    return { served: served(RequestService, impl), releases };
  }

  it('lets the calls under way finish, resolves when the last has, and refuses every later call', async () => {
    const gate = new ApiCallGate();
    const { served: s, releases } = service();
    const guarded = gate.guard(s).impl as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const first = guarded.getRequest!({}, {});
    const second = guarded.getRequest!({}, {});

    let idle = false;
    const closed = gate.close().then(() => (idle = true));
    expect(gate.closed).toBe(true);
    const refused = guarded.getRequest!({}, {});
    await expect(refused).rejects.toBeInstanceOf(FerryError);
    await expect(refused).rejects.toMatchObject({ code: 'SHUTTING_DOWN', status: 503, retryAfterSeconds: 1 });

    releases[0]!();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    releases[1]!();
    await second;
    await closed;
    expect(releases).toHaveLength(2);
  });

  it('closes at once when nothing is under way, and leaves methods without an implementation out', async () => {
    const gate = new ApiCallGate();
    const guarded = gate.guard(service().served).impl as Record<string, unknown>;
    expect(guarded.send).toBeUndefined();
    await gate.close();
  });
});
