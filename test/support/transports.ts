import { createThreadedTransport, type ThreadedTransportOptions } from '../../src/adapters/http/threaded-transport.js';
import { createHttpTransport } from '../../src/adapters/http/transport.js';
import type { DeliveryTransport } from '../../src/ports/delivery-transport.js';

export type TransportSettings = Omit<ThreadedTransportOptions, 'threads'>;

/**
 * Both ways the HTTP transport runs: on the calling thread, and on a delivery thread behind a structured-clone
 * boundary (the service's default). Transport tests that need no injected functions run against each.
 */
export const TRANSPORTS: ReadonlyArray<readonly [string, (settings: TransportSettings) => DeliveryTransport]> = [
  ['on the calling thread', (settings) => createHttpTransport(settings)],
  ['on a delivery thread', (settings) => createThreadedTransport({ ...settings, threads: 1 })],
];
