import { afterAll, afterEach, beforeAll } from 'vitest';
import { createThreadedTransport, type ThreadedTransportOptions } from '../../src/adapters/http/threaded-transport.js';
import { createHttpTransport } from '../../src/adapters/http/transport.js';
import type { DeliveryTransport, OutboundRequest } from '../../src/ports/delivery-transport.js';
import { startDestination, type Destination } from './destination.js';

export type TransportSettings = Omit<ThreadedTransportOptions, 'threads'>;

/**
 * Both ways the HTTP transport runs: on the calling thread, and on a delivery thread behind a structured-clone
 * boundary (the service's default given two or more cores). Transport tests that need no injected functions run
 * against each.
 */
export const TRANSPORTS: ReadonlyArray<readonly [string, (settings: TransportSettings) => DeliveryTransport]> = [
  ['on the calling thread', (settings) => createHttpTransport(settings)],
  ['on a delivery thread', (settings) => createThreadedTransport({ ...settings, threads: 1 })],
];

/** The scriptable destination a test file shares, and the transport its current test opened. */
export interface TransportFixture {
  destination: Destination;
  transport: DeliveryTransport;
}

/** Starts the destination before the file's tests and closes it after them; closes each test's transport after it. */
export function transportFixture(): TransportFixture {
  const fixture = {} as TransportFixture;
  beforeAll(async () => {
    fixture.destination = await startDestination();
  });
  afterAll(async () => {
    await fixture.destination.close();
  });
  afterEach(async () => {
    // Unset when a test failed before opening one; cleared so that a test which opens none closes nothing.
    const opened = fixture.transport as DeliveryTransport | undefined;
    (fixture as Partial<TransportFixture>).transport = undefined;
    await opened?.close();
  });
  return fixture;
}

/** An outbound request as a transport gets it: a small POST to `url` with a 5 s budget. */
export function anOutbound(url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest {
  return { url, method: 'POST', headers: [], body: Buffer.from('{}'), timeoutMs: 5_000, ...overrides };
}
