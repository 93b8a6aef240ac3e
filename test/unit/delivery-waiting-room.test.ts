import { describe, expect, it } from 'vitest';
import type { StoredRequest } from '../../src/domain/request.js';
import type { Claim } from '../../src/ports/requests.js';
import { ConcurrencyLimits } from '../../src/workers/delivery/limits.js';
import { WaitingRoom, type Waiting } from '../../src/workers/delivery/waiting-room.js';

const waiting = (id: string, host: string, queue: string, since: number): Waiting => ({
  claim: { request: { id } as StoredRequest } as Claim,
  host,
  queue,
  since,
});

/** Everything `next` hands out, starting each as the engine does, until nothing may start. */
function drain(room: WaitingRoom, limits: ConcurrencyLimits): string[] {
  const started: string[] = [];
  for (let w = room.next(limits); w !== undefined; w = room.next(limits)) {
    limits.start(w.host, w.queue);
    started.push(w.claim.request.id);
  }
  return started;
}

describe('WaitingRoom', () => {
  it('starts the oldest claims first across hosts, and only while the host has a free slot', () => {
    const room = new WaitingRoom();
    room.add(waiting('a1', 'a.example', 'p/q', 1));
    room.add(waiting('b1', 'b.example', 'p/q', 2));
    room.add(waiting('a2', 'a.example', 'p/q', 3));
    room.add(waiting('a3', 'a.example', 'p/q', 4));
    room.add(waiting('b2', 'b.example', 'p/q', 5));
    const limits = new ConcurrencyLimits(100, 2, 100);
    expect(drain(room, limits)).toEqual(['a1', 'b1', 'a2', 'b2']);
    expect(room.size).toBe(1);

    limits.exchanged('a.example', 'p/q');
    expect(drain(room, limits)).toEqual(['a3']);
    expect(room.size).toBe(0);
  });

  it('passes over requests whose queue is full for later ones of the same host', () => {
    const room = new WaitingRoom();
    room.add(waiting('busy1', 'a.example', 'p/busy', 1));
    room.add(waiting('busy2', 'a.example', 'p/busy', 2));
    room.add(waiting('other', 'a.example', 'p/other', 3));
    const limits = new ConcurrencyLimits(100, 100, 1);
    expect(drain(room, limits)).toEqual(['busy1', 'other']);
    expect(room.size).toBe(1);
  });

  it('stops at the global limit', () => {
    const room = new WaitingRoom();
    for (let i = 0; i < 5; i++) room.add(waiting(`r${i}`, `h${i}.example`, 'p/q', i));
    expect(drain(room, new ConcurrencyLimits(3, 10, 10))).toEqual(['r0', 'r1', 'r2']);
    expect(room.size).toBe(2);
  });

  it('takes out the requests waiting since a time or earlier, and everything at once', () => {
    const room = new WaitingRoom();
    room.add(waiting('old-a', 'a.example', 'p/q', 10));
    room.add(waiting('new-a', 'a.example', 'p/q', 30));
    room.add(waiting('old-b', 'b.example', 'p/q', 20));
    expect(room.takeWaitingSince(20).map((w) => w.claim.request.id).sort()).toEqual(['old-a', 'old-b']);
    expect(room.size).toBe(1);
    expect(room.takeAll().map((w) => w.claim.request.id)).toEqual(['new-a']);
    expect(room.size).toBe(0);
    expect(room.next(new ConcurrencyLimits(10, 10, 10))).toBeUndefined();
  });
});

describe('ConcurrencyLimits', () => {
  it('frees the slot when the exchange ends and keeps counting the outcome until it is written', () => {
    const limits = new ConcurrencyLimits(2, 1, 2);
    limits.start('a.example', 'p/q');
    expect(limits.hostFull('a.example')).toBe(true);
    // As many may wait for a slot as there are slots, whatever is in flight.
    expect(limits.claimable(0)).toBe(2);
    expect(limits.claimable(2)).toBe(0);

    limits.exchanged('a.example', 'p/q');
    expect(limits.hostFull('a.example')).toBe(false);
    expect(limits.queueFull('p/q')).toBe(false);
    expect(limits.inFlight).toBe(0);
    expect(limits.recording).toBe(1);
    expect(limits.claimable(0)).toBe(2);

    limits.recorded();
    expect(limits.recording).toBe(0);
  });

  it('claims nothing more while the outcomes awaiting their write reach their own bound', () => {
    const limits = new ConcurrencyLimits(4, 4, 4, 3);
    for (let i = 0; i < 3; i++) {
      limits.start('a.example', 'p/q');
      limits.exchanged('a.example', 'p/q');
    }
    expect(limits.inFlight).toBe(0);
    expect(limits.claimable(0)).toBe(0);
    limits.recorded();
    expect(limits.claimable(0)).toBe(1);
    // Requests already claimed and waiting for a slot count against the slots.
    expect(limits.claimable(4)).toBe(0);
  });
});
