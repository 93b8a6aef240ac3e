import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createServiceLogger, type LoggerLevel } from '../../src/adapters/telemetry/logger.js';

/** A logger writing into an array of parsed lines. */
function capture(level: LoggerLevel) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createServiceLogger({ level, destination }) };
}

describe('service logger', () => {
  it('writes the line shape Ferry has always written: level label, ISO time, fields and msg, nothing else', () => {
    const { lines, logger } = capture('info');
    logger.log('info', 'listening', { http_port: 8080, grpc_port: 8081 });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(Object.keys(line).sort()).toEqual(['grpc_port', 'http_port', 'level', 'msg', 'time']);
    expect(line).toMatchObject({ level: 'info', msg: 'listening', http_port: 8080, grpc_port: 8081 });
    expect(new Date(line.time as string).toISOString()).toBe(line.time);
  });

  it('writes only lines at or above its level, and can be set to another', () => {
    const { lines, logger } = capture('warn');
    logger.log('info', 'quiet');
    logger.log('debug', 'quieter');
    logger.log('error', 'loud');
    expect(lines.map((l) => l.msg)).toEqual(['loud']);
    expect(logger.isEnabled('debug')).toBe(false);
    logger.setLevel('trace');
    expect(logger.isEnabled('debug')).toBe(true);
    logger.log('trace', 'now heard');
    expect(lines.map((l) => l.level)).toEqual(['error', 'trace']);
  });

  it('censors secret-looking fields, at the top and one level down, should a line ever carry them', () => {
    const { lines, logger } = capture('info');
    logger.log('warn', 'careless', {
      authorization: 'Bearer fry_secret',
      headers: { 'x-token': 'header-value' },
      request: { body: 'payload', signing_secret: 'whsec_x', url: 'https://example.com/' },
    });
    const text = JSON.stringify(lines);
    for (const secret of ['fry_secret', 'header-value', 'payload', 'whsec_x']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ authorization: '[redacted]', request: { url: 'https://example.com/' } });
  });
});
