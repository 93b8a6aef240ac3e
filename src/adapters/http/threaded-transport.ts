import type { Worker } from 'node:worker_threads';
import type { TimedOutcome } from '../../domain/delivery/outcome.js';
import type { DeliveryTransport, OutboundRequest } from '../../ports/delivery-transport.js';
import { startWorkerThread } from '../worker-thread.js';
import { abortedAttempt, type HttpTransportOptions } from './transport.js';
import type { FromTransportThread, ThreadPrepare, ThreadSend, ToTransportThread, TransportThreadData } from './transport-thread-protocol.js';

export interface ThreadedTransportOptions extends Omit<HttpTransportOptions, 'lookup' | 'tcpConnect'> {
  /** Delivery threads; each destination host is served by one of them, so its keep-alive pool stays in one place. */
  readonly threads: number;
}

/** The module a delivery thread runs: `name` next to the module at `here`, as `startWorkerThread` takes them. */
export interface ThreadModule {
  readonly here: string;
  readonly name: string;
}

const DELIVERY_THREAD: ThreadModule = { here: import.meta.url, name: 'transport-thread' };

/**
 * The HTTP transport run on delivery threads. The attempts the engine starts in one turn reach a thread as one
 * message and their outcomes come back batched the same way, so the main thread pays a structured clone per attempt
 * instead of the TLS, HTTP and socket work. An attempt fails (rejects) where it would have failed on the calling
 * thread, and so does every attempt of a thread that dies; the thread is replaced on the next attempt. On close,
 * attempts still in flight end `aborted`.
 */
export function createThreadedTransport(opts: ThreadedTransportOptions): DeliveryTransport {
  return threadedTransportRunning(DELIVERY_THREAD, opts);
}

/** The threaded transport with its threads running `threadModule`: a test makes a thread fail as a real one could. */
export function threadedTransportRunning(threadModule: ThreadModule, opts: ThreadedTransportOptions): DeliveryTransport {
  const { threads: count, ca, ...rest } = opts;
  // PEM is text: a string crosses to the thread as it is, where a Buffer would arrive as a plain Uint8Array.
  const data: TransportThreadData = ca === undefined ? rest : { ...rest, ca: ca.toString() };
  if (!Number.isInteger(count) || count < 1) throw new RangeError('A threaded transport needs at least one thread.');
  const threads = Array.from({ length: count }, () => new DeliveryThread(data, threadModule));
  // Started now rather than at the first attempt: loading a thread's code takes long enough to make the first
  // requests that fall due late.
  for (const t of threads) t.start();
  let closing: Promise<void> | null = null;
  return {
    send(req: OutboundRequest): Promise<TimedOutcome> {
      if (closing !== null) return Promise.resolve(abortedAttempt());
      return threads[count === 1 ? 0 : threadOf(req.url, count)]!.send(req);
    },
    prepare(url: string, connections: number): void {
      if (closing !== null) return;
      threads[count === 1 ? 0 : threadOf(url, count)]!.prepare({ url, connections });
    },
    abortInFlight(): void {
      for (const t of threads) t.abortInFlight();
    },
    close(): Promise<void> {
      closing ??= Promise.all(threads.map((t) => t.close())).then(() => undefined);
      return closing;
    },
  };
}

class DeliveryThread {
  private worker: Worker | null = null;
  private exited: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, Settler>();
  private nextId = 1;
  private outbox: ThreadSend[] = [];
  private flushScheduled = false;

  constructor(
    private readonly data: TransportThreadData,
    private readonly module: ThreadModule,
  ) {}

  start(): void {
    this.running();
  }

  send(req: OutboundRequest): Promise<TimedOutcome> {
    const worker = this.running();
    const id = this.nextId++;
    return new Promise<TimedOutcome>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      this.outbox.push({ id, request: req });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        queueMicrotask(() => this.flush(worker));
      }
    });
  }

  /** Opening connections is the thread's business: one that is not running has nothing to open them for. */
  prepare(prepare: ThreadPrepare): void {
    this.worker?.postMessage({ prepare } satisfies ToTransportThread);
  }

  /** Attempts handed over in this turn are sent first, so the abort reaches them too. */
  abortInFlight(): void {
    const worker = this.worker;
    if (worker === null) return;
    this.flush(worker);
    worker.postMessage('abort' satisfies ToTransportThread);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === null) return;
    this.flush(worker);
    this.worker = null;
    worker.ref();
    worker.postMessage('close' satisfies ToTransportThread);
    await this.exited;
  }

  private running(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startWorkerThread(this.module.here, this.module.name, this.data);
    worker.unref();
    worker.on('message', (batch: FromTransportThread) => this.settle(batch));
    // An error event is followed by the exit event, which settles what the thread still had.
    let failure: unknown = null;
    worker.on('error', (err) => (failure = err));
    this.exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        // close() lets go of the thread first; any other exit is a failure of the thread itself.
        const closed = this.worker !== worker;
        if (!closed) this.worker = null;
        this.settleAll(closed ? null : new Error(`The delivery thread stopped (${failure === null ? `exit code ${code}` : String(failure)}).`, { cause: failure }));
        resolve();
      });
    });
    this.worker = worker;
    return worker;
  }

  private flush(worker: Worker): void {
    this.flushScheduled = false;
    const sends = this.outbox;
    // Gone between send and flush: its exit handed these back already. Flushed early: nothing left to send.
    if (this.worker !== worker || sends.length === 0) return;
    this.outbox = [];
    worker.postMessage({ sends } satisfies ToTransportThread);
  }

  private settle(batch: FromTransportThread): void {
    for (const [id, outcome, fault] of batch) {
      this.finish(id, outcome ?? new Error(`The delivery thread failed an attempt: ${fault ?? 'no reason given'}`));
    }
  }

  private finish(id: number, result: TimedOutcome | Error): void {
    const settler = this.pending.get(id);
    if (settler === undefined) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    if (result instanceof Error) settler.reject(result);
    else settler.resolve(result);
  }

  /** What the thread had, or had not been handed yet: aborted after a close, failed with `failure` otherwise. */
  private settleAll(failure: Error | null): void {
    this.outbox = [];
    for (const id of [...this.pending.keys()]) this.finish(id, failure ?? abortedAttempt());
  }
}

interface Settler {
  readonly resolve: (outcome: TimedOutcome) => void;
  readonly reject: (err: Error) => void;
}

/** A stable thread per destination host, so each host's connections live in one pool. */
function threadOf(url: string, count: number): number {
  const start = url.indexOf('//') + 2;
  const end = url.indexOf('/', start);
  const authority = end < 0 ? url.slice(start) : url.slice(start, end);
  let hash = 0;
  for (let i = 0; i < authority.length; i++) hash = (hash * 31 + authority.charCodeAt(i)) | 0;
  return Math.abs(hash) % count;
}
