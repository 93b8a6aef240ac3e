import { describe, expect, it } from 'vitest';
import { ACTIVE_STATUSES, ENDED_STATUSES, STATUSES, canCancel, canReplay, hasEnded } from '../../src/console/requests/request-status.js';
import { REQUEST_STATUSES } from '../../src/domain/request.js';
import { ACTIVE_STATUSES as ACTIVE_IN_DOMAIN, TERMINAL_STATUSES } from '../../src/domain/request-lifecycle/index.js';

describe("the console's request statuses", () => {
  it('are the domain’s statuses, ended exactly where the domain says terminal', () => {
    expect([...STATUSES].sort()).toEqual([...REQUEST_STATUSES].sort());
    expect([...ENDED_STATUSES].sort()).toEqual([...TERMINAL_STATUSES].sort());
    expect([...ACTIVE_STATUSES].sort()).toEqual([...ACTIVE_IN_DOMAIN].sort());
    expect(ACTIVE_STATUSES.filter((s) => TERMINAL_STATUSES.has(s))).toEqual([]);
  });

  it('offer Cancel only while a request is active', () => {
    expect(STATUSES.filter(canCancel)).toEqual(['scheduled', 'queued', 'delivering']);
    for (const ended of ['succeeded', 'failed', 'cancelled']) expect(canCancel(ended), ended).toBe(false);
  });

  it('offer Replay only once a request has ended', () => {
    expect(STATUSES.filter(canReplay)).toEqual(['succeeded', 'failed', 'cancelled']);
    for (const active of ['scheduled', 'queued', 'delivering']) expect(canReplay(active), active).toBe(false);
  });

  it('offer nothing for a status the console does not know or was not given', () => {
    for (const status of [null, '', 'cancellation_requested', 'exploded']) {
      expect(canCancel(status), String(status)).toBe(false);
      expect(canReplay(status), String(status)).toBe(false);
      expect(hasEnded(status), String(status)).toBe(false);
    }
  });
});
