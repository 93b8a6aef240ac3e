import type { ConnectionOptions } from './connection.js';
import type { WriteErrorData } from './errors.js';

/** What the writer thread is started with. */
export interface WriterData extends ConnectionOptions {
  readonly maxGroupSize: number;
}

/**
 * Main thread to writer: the writes queued in one turn, flat as [op name, args, op name, args, …], or `close`
 * once no write is in flight any more.
 */
export type ToWriter = unknown[] | 'close';

/**
 * Writer to main thread: the outcome of one group transaction, one result per write in the order the writes were
 * sent. `failures` holds the positions (and errors) of the writes that did not commit; their results are null.
 */
export interface GroupReply {
  readonly results: unknown[];
  readonly failures: Array<readonly [index: number, error: WriteErrorData]>;
}
