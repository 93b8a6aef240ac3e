import { describe, expect, it } from 'vitest';
import { sharedPort } from '../../src/adapters/cassandra/session.js';

describe('the port the Cassandra driver uses for the nodes it discovers', () => {
  it('is the contact points\' port when they all name the same one', () => {
    expect(sharedPort(['127.0.0.1:29042', '127.0.0.2:29042', '127.0.0.3:29042'])).toBe(29042);
    expect(sharedPort(['[::1]:19042'])).toBe(19042);
  });

  it('is left to the driver when they name none, or different ones', () => {
    expect(sharedPort(['cassandra-1', 'cassandra-2'])).toBeUndefined();
    expect(sharedPort(['a:9042', 'b:9142'])).toBeUndefined();
    expect(sharedPort(['a:9042', 'b'])).toBeUndefined();
  });
});
