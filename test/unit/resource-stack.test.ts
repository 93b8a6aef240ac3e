import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openOnStack, ResourceStack } from '../../src/runtime/resource-stack.js';
import { startService } from '../../src/runtime/service.js';

/** A resource whose close is recorded, and finishes only when the test lets it. */
function resource(name: string, closed: string[], finish: Map<string, () => void>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      closed.push(`${name} closing`);
      finish.set(name, () => {
        closed.push(`${name} closed`);
        resolve();
      });
    });
}

/** Lets each close finish as it begins, so that the order they ran in is all that is left to check. */
async function finishAll(finish: Map<string, () => void>, count: number, closing: Promise<unknown>): Promise<void> {
  for (let done = 0; done < count; done++) {
    while (finish.size === 0) await new Promise((resolve) => setImmediate(resolve));
    const [name, end] = [...finish][0]!;
    finish.delete(name);
    end();
  }
  await closing;
}

describe('ResourceStack', () => {
  it('closes the last opened first, each after the one before it has finished', async () => {
    const closed: string[] = [];
    const finish = new Map<string, () => void>();
    const stack = new ResourceStack();
    for (const name of ['telemetry', 'storage', 'server']) stack.defer(resource(name, closed, finish));
    await finishAll(finish, 3, stack.close());
    expect(closed).toEqual(['server closing', 'server closed', 'storage closing', 'storage closed', 'telemetry closing', 'telemetry closed']);
  });

  it('closes everything even when one close fails, then throws the first failure', async () => {
    const closed: string[] = [];
    const stack = new ResourceStack();
    stack.defer(() => void closed.push('first'));
    stack.defer(() => Promise.reject(new Error('second failed')));
    stack.defer(() => {
      closed.push('third');
      throw new Error('third failed');
    });
    await expect(stack.close()).rejects.toThrow('third failed');
    expect(closed).toEqual(['third', 'first']);
  });

  it('closes once, however often it is asked, and takes nothing more once closed', async () => {
    let closes = 0;
    const stack = new ResourceStack();
    stack.defer(() => void closes++);
    const first = stack.close();
    expect(stack.close()).toBe(first);
    await first;
    expect(closes).toBe(1);
    expect(() => stack.defer(() => undefined)).toThrow('already closed');
  });

  it('closes what a start had opened when it fails midway, in reverse, and throws why the start failed', async () => {
    const closed: string[] = [];
    const failure = new Error('the API port is in use');
    const started = openOnStack(async (resources) => {
      resources.defer(() => void closed.push('telemetry'));
      resources.defer(() => Promise.reject(new Error('storage failed to close too')));
      resources.defer(() => void closed.push('placement'));
      throw failure;
    });
    await expect(started).rejects.toBe(failure);
    expect(closed).toEqual(['placement', 'telemetry']);
  });

  it('hands over what a start opened, with the stack that closes it', async () => {
    const closed: string[] = [];
    const { opened, resources } = await openOnStack(async (stack) => {
      stack.defer(() => void closed.push('storage'));
      return 'service';
    });
    expect([opened, closed]).toEqual(['service', []]);
    await resources.close();
    expect(closed).toEqual(['storage']);
  });
});

describe('the composition root', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-stack-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('closes what a failed start opened: the same data directory starts again at once', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const env = {
      FERRY_DATA_DIR: dataDir,
      FERRY_GRPC_PORT: '0',
      FERRY_METRICS_PORT: '0',
      FERRY_DELIVERY_THREADS: '0',
      FERRY_SHUTDOWN_GRACE_MS: '100',
      FERRY_LOG_LEVEL: 'silent',
    };
    try {
      // Storage, placement, the workers and the metrics listener are open by the time the API port is refused.
      const failed = startService(loadConfig({ ...env, FERRY_HTTP_PORT: String((taken.address() as AddressInfo).port) }));
      await expect(failed).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    // The data directory's lock is released with storage: a start that found it held would fail with DataDirInUse.
    const service = await startService(loadConfig({ ...env, FERRY_HTTP_PORT: '0' }));
    await service.stop();
  });
});
