import ipaddr from 'ipaddr.js';
import { FerryError } from '../errors.js';
import { MAX_URL_BYTES, utf8Length } from './limits.js';

export interface DestinationOptions {
  /** For local development and tests only: lets loopback and private destinations through. */
  readonly allowPrivate: boolean;
}

// Names that never lead to the public internet (RFC 6761, RFC 8375) or that common resolvers map to local hosts.
const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'];

// WHATWG rewrites every IPv4 spelling (2130706433, 0x7f.1, 127.1) to dotted decimal, so this form is the only one left.
const DOTTED_IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

// WHATWG silently strips or re-encodes these; a URL that needs such repair is rejected rather than guessed at.
// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * True only for a public unicast address. Used before connecting as well as here, so it accepts plain IPv4, plain or
 * bracketed IPv6, IPv4-mapped IPv6 (judged by its IPv4 address) and zone suffixes; anything unparseable is not public.
 */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(bare);
  } catch {
    return false;
  }
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast';
  const v6 = addr as ipaddr.IPv6;
  if (v6.zoneId !== undefined) return false;
  // NAT64 carries an IPv4 destination in its low 32 bits; the gateway would connect there.
  if (v6.match(NAT64_WELL_KNOWN)) {
    const low = v6.toByteArray().slice(12);
    return new ipaddr.IPv4(low).range() === 'unicast';
  }
  // Outside 2000::/3 nothing is globally routed; inside it, ipaddr.js names the special blocks (6to4, Teredo,
  // documentation, benchmarking, ORCHID), all of which can tunnel to or stand for non-public hosts.
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
}

function notAllowed(message: string, field: string): FerryError {
  return new FerryError('DESTINATION_NOT_ALLOWED', message, field);
}

function invalid(message: string, field: string): FerryError {
  return new FerryError('INVALID_URL', message, field);
}

function checkHostname(host: string, field: string): void {
  if (host.startsWith('[')) {
    if (!isPublicAddress(host)) throw notAllowed(`The destination address ${host} is not a public address.`, field);
    return;
  }
  if (DOTTED_IPV4.test(host)) {
    if (!isPublicAddress(host)) throw notAllowed(`The destination address ${host} is not a public address.`, field);
    return;
  }
  // A trailing dot names the same host as without it.
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === 'localhost' || PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    throw notAllowed(`The destination host ${host} is a local or private name.`, field);
  }
  if (!name.includes('.')) {
    throw notAllowed(`The destination host ${host} is a single-label name, which only resolves on local networks.`, field);
  }
}

/**
 * Checks a destination URL and returns its WHATWG-normalised form, which is what gets stored and delivered to.
 * Host checks here are a first line only: DNS answers and connected addresses are checked again at delivery time.
 */
export function validateDestinationUrl(raw: string, opts: DestinationOptions, field = 'url'): string {
  if (typeof raw !== 'string' || raw.length === 0) throw invalid('The URL is empty.', field);
  if (utf8Length(raw) > MAX_URL_BYTES) throw invalid(`The URL is longer than ${MAX_URL_BYTES} bytes.`, field);
  if (CONTROL_OR_SPACE.test(raw)) throw invalid('The URL contains spaces or control characters.', field);
  if (raw.includes('#')) throw invalid('The URL must not contain a fragment (#).', field);

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('The URL cannot be parsed.', field);
  }
  if (url.protocol !== 'https:') throw invalid(`The URL must use https, not ${url.protocol.slice(0, -1)}.`, field);
  if (url.username !== '' || url.password !== '') throw invalid('The URL must not contain credentials.', field);
  if (url.hostname === '') throw invalid('The URL has no host.', field);
  if (url.port === '0') throw invalid('The URL port must not be 0.', field);

  const href = url.href;
  if (utf8Length(href) > MAX_URL_BYTES) {
    throw invalid(`The URL is longer than ${MAX_URL_BYTES} bytes once normalised.`, field);
  }
  if (!opts.allowPrivate) checkHostname(url.hostname, field);
  return href;
}
