import { describe, expect, it } from 'vitest';
import { KnownRequests } from '../../src/adapters/cassandra/requests/known-requests.js';
import { WrittenEntries } from '../../src/adapters/cassandra/shared/written-entries.js';
import { aRequest } from '../contract/suite/harness.js';

describe('KnownRequests', () => {
  it('answers a remembered request only at its version, and only once', () => {
    const known = new KnownRequests();
    const r = aRequest({ version: 3 });
    known.remember(r, 1);
    expect(known.take(r.id, 2)).toBeUndefined();
    // A miss forgets it too: the caller reads the request and the next change remembers nothing stale.
    expect(known.take(r.id, 3)).toBeUndefined();
    known.remember(r, 1);
    expect(known.take(r.id, 3)?.request).toBe(r);
    expect(known.take(r.id, 3)).toBeUndefined();
  });

  it('keeps the newest state of a request', () => {
    const known = new KnownRequests();
    const r = aRequest({ version: 1 });
    known.remember(r, 1);
    known.remember({ ...r, version: 2 }, 1);
    expect(known.take(r.id, 2)?.request.version).toBe(2);
  });

  it('forgets the oldest requests once their bodies pass the byte bound', () => {
    const known = new KnownRequests();
    const big = () => aRequest({ body: new Uint8Array(20 * 1024 * 1024) });
    const [a, b, c, d] = [big(), big(), big(), big()];
    for (const r of [a, b, c, d]) known.remember(r, 1);
    expect(known.take(a.id, a.version)).toBeUndefined();
    expect(known.take(d.id, d.version)?.request).toBe(d);
    expect(known.take(c.id, c.version)?.request).toBe(c);
  });
});

describe('WrittenEntries', () => {
  it('remembers written keys until told to forget them', () => {
    const written = new WrittenEntries();
    expect(written.has('a')).toBe(false);
    written.add('a');
    expect(written.has('a')).toBe(true);
    written.forget('a');
    expect(written.has('a')).toBe(false);
  });
});
