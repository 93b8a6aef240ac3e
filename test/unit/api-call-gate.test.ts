import { createContextValues, type HandlerContext } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { FerryError } from '../../src/domain/errors.js';
import { ApiCallGate } from '../../src/edge/calls/gate.js';
import type { UnaryCall } from '../../src/edge/calls/unary-call.js';

function call(): UnaryCall {
  const context = { values: createContextValues() } as HandlerContext;
  return { protocol: 'json', route: 'GET /requests/{request_id}', rpc: 'ferry.v1.RequestService/GetRequest', requestId: 'id', startedAt: 0, context, answer: undefined };
}

describe('ApiCallGate', () => {
  function service() {
    const releases: Array<() => void> = [];
    const served = (): Promise<unknown> => new Promise((resolve) => releases.push(() => resolve({})));
    return { served, releases };
  }

  it('lets the calls under way finish, resolves when the last has, and refuses every later call', async () => {
    const gate = new ApiCallGate();
    const { served, releases } = service();
    const guarded = gate.stage(served);
    const first = guarded(call());
    const second = guarded(call());

    let idle = false;
    const closed = gate.close().then(() => (idle = true));
    expect(gate.closed).toBe(true);
    const refused = guarded(call());
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

  it('closes at once when nothing is under way', async () => {
    const gate = new ApiCallGate();
    await gate.close();
    expect(gate.closed).toBe(true);
  });

  it('counts a call that failed as ended', async () => {
    const gate = new ApiCallGate();
    await expect(gate.stage(() => Promise.reject(new Error('failed')))(call())).rejects.toThrow('failed');
    await gate.close();
  });
});
