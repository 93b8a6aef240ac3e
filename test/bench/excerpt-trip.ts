/**
 * A response excerpt's trip alone, without HTTP: made on a "delivery" thread from a freshly read chunk, posted in
 * batches to the main thread, posted on to a "writer" thread and inserted into SQLite in one transaction a batch.
 * Three variants: `bytes` (a copy of the chunk's first bytes, cloned at each thread, stored as a BLOB: Ferry's path
 * until 2026-11-28), `batched` (a batch's excerpts copied into one buffer that is transferred, then cloned once to the
 * writer: Ferry's path now, `src/adapters/http/outcome-batch.ts`) and `text` (the API's form, `utf8` text or `base64`, made on the delivery thread as `bodyText(bodyExcerpt(…))`,
 * the string cloned, stored as TEXT: the design tried on 2026-11-28, test/bench/README.md#response-capture).
 * Prints CPU of the whole process (all threads) per excerpt and GC pauses of the three threads: figures that move less
 * than deliveries/s when the machine is shared.
 *
 *   npm run build && npx tsx test/bench/excerpt-trip.ts [--excerpts 30000] [--bytes 2048] [--rounds 3] [--variants bytes,batched,text]
 */
import { fileURLToPath } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type * as Response from '../../src/domain/delivery/response.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const excerpts = Number(args.get('excerpts') ?? 30_000);
const size = Number(args.get('bytes') ?? 2048);
const rounds = Number(args.get('rounds') ?? 3);
const BATCH = 64;
type Variant = 'bytes' | 'text' | 'batched';
const variants: readonly Variant[] = (args.get('variants') ?? 'bytes,batched,text').split(',') as Variant[];
const IN_FLIGHT = 4;
let mainGcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) mainGcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
const responseModule = fileURLToPath(new URL('../../dist/domain/delivery/response.js', import.meta.url));

// Both threads' code is plain JS: workers started from source would need the TypeScript loader in each.
const gcMeter = `
  const { PerformanceObserver } = require('node:perf_hooks');
  let gcMs = 0;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) gcMs += e.duration; }).observe({ entryTypes: ['gc'] });
`;
const deliveryCode = `
  const { parentPort, workerData } = require('node:worker_threads');
  ${gcMeter}
  const { variant, excerpts, size, batch, inFlight, responseModule } = workerData;
  import(responseModule).then(({ bodyExcerpt, bodyText }) => {
    const template = Buffer.from(JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: 'ord_' + i, status: 'pending', amount: i * 37 })) }).slice(0, size));
    let sent = 0, credit = inFlight;
    const turn = () => {
      while (credit > 0 && sent < excerpts) {
        const out = [];
        for (let i = 0; i < batch && sent < excerpts; i++, sent++) {
          // What a socket read hands over: a buffer of its own, with more after the excerpt.
          const chunk = Buffer.allocUnsafeSlow(size + 256);
          template.copy(chunk);
          const start = chunk.subarray(0, size);
          if (variant === 'bytes') out.push({ bodyStart: Uint8Array.prototype.slice.call(start, 0, size) });
          else if (variant === 'batched') out.push({ bodyStart: start });
          else out.push({ body: bodyText(bodyExcerpt(start, true)) });
        }
        credit--;
        if (variant !== 'batched') parentPort.postMessage(out);
        else {
          // The batch's excerpts copied side by side into one buffer that is transferred, not cloned.
          let total = 0;
          for (const o of out) total += o.bodyStart.byteLength;
          const buffer = new ArrayBuffer(total);
          let at = 0;
          for (const o of out) {
            const view = new Uint8Array(buffer, at, o.bodyStart.byteLength);
            view.set(o.bodyStart);
            o.bodyStart = view;
            at += view.byteLength;
          }
          parentPort.postMessage(out, [buffer]);
        }
      }
      if (sent >= excerpts && credit === inFlight) parentPort.postMessage({ gcMs });
    };
    parentPort.on('message', () => { credit++; setImmediate(turn); });
    turn();
  });
`;
const writerCode = `
  const { parentPort } = require('node:worker_threads');
  ${gcMeter}
  const Database = require('better-sqlite3');
  const db = new Database(':memory:');
  db.exec('CREATE TABLE attempt_bodies (request_id TEXT NOT NULL, attempt_number INTEGER NOT NULL, body BLOB NOT NULL, body_text TEXT, body_encoding TEXT, PRIMARY KEY (request_id, attempt_number)) STRICT');
  const asBytes = db.prepare('INSERT INTO attempt_bodies (request_id, attempt_number, body) VALUES (?, 1, ?)');
  const asText = db.prepare('INSERT INTO attempt_bodies (request_id, attempt_number, body, body_text, body_encoding) VALUES (?, 1, ?, ?, ?)');
  const empty = new Uint8Array(0);
  let n = 0;
  const write = db.transaction((records) => {
    for (const r of records) {
      const id = 'req_' + (n++);
      if (r.body === undefined) asBytes.run(id, r.bytes);
      else asText.run(id, empty, r.body.text, r.body.encoding);
    }
  });
  parentPort.on('message', (m) => {
    if (m === 'done') parentPort.postMessage({ gcMs, rows: n });
    else { write(m); parentPort.postMessage('ack'); }
  });
`;

async function once(variant: Variant): Promise<{ cpuUs: number; wallMs: number; gcMs: number }> {
  const { bodyExcerpt } = (await import(responseModule)) as typeof Response;
  const writer = new Worker(writerCode, { eval: true });
  const delivery = new Worker(deliveryCode, { eval: true, workerData: { variant, excerpts, size, batch: BATCH, inFlight: IN_FLIGHT, responseModule } });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const mainGc0 = mainGcMs;
  const gc = await new Promise<number>((resolve) => {
    let deliveryGc = 0;
    writer.on('message', (m: unknown) => {
      if (m === 'ack') delivery.postMessage('credit');
      else resolve(deliveryGc + (m as { gcMs: number }).gcMs);
    });
    delivery.on('message', (m: unknown) => {
      if (!Array.isArray(m)) {
        deliveryGc = (m as { gcMs: number }).gcMs;
        writer.postMessage('done');
        return;
      }
      // The main thread's part: the bytes variant cut its copy as the attempt's record did (a view, then cloned on).
      writer.postMessage(m.map((o: { bodyStart?: Uint8Array; body?: unknown }) => (o.bodyStart !== undefined ? { bytes: bodyExcerpt(o.bodyStart, true) } : { body: o.body })));
    });
  });
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  await Promise.all([delivery.terminate(), writer.terminate()]);
  return { cpuUs: used.user + used.system, wallMs, gcMs: gc + mainGcMs - mainGc0 };
}

console.log(`${excerpts} excerpts of ${size} bytes, batches of ${BATCH}; one warm-up run of each first`);
for (const variant of variants) await once(variant);
for (let r = 1; r <= rounds; r++) {
  for (const variant of r % 2 === 1 ? variants : [...variants].reverse()) {
    const { cpuUs, wallMs, gcMs } = await once(variant);
    console.log(
      `round ${r} ${variant.padEnd(7)}: ${(cpuUs / excerpts).toFixed(1)} µs CPU an excerpt (all threads), ${((wallMs * 1000) / excerpts).toFixed(1)} µs wall, ` +
        `GC ${gcMs.toFixed(0)} ms (all three threads)`,
    );
  }
}
