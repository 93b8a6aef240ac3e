import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isPublicAddress } from '../../domain/validation/url.js';

/** The IP address a URL hostname spells out, without brackets, or null for a name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}

/** An IPv4-mapped IPv6 address shown as the IPv4 address it stands for, so messages name the real target. */
export function normaliseAddress(address: string): string {
  try {
    return ipaddr.process(address).toString();
  } catch {
    return address;
  }
}

export { isPublicAddress };
