import pino, { type DestinationStream } from 'pino';
import type { Log, LogLevel } from '../../ports/telemetry.js';

/** The levels a logger can be set to: those lines are written at, plus `fatal` and `silent` (nothing but fatal, nothing). */
export type LoggerLevel = LogLevel | 'fatal' | 'silent';

export interface ServiceLogger {
  /** Writes one line; cheap when the level is off (pino's method for it is a no-op). */
  readonly log: Log;
  /** Whether lines at `level` are written: callers skip building costly fields when not. */
  isEnabled(level: LogLevel): boolean;
  setLevel(level: LoggerLevel): void;
}

/**
 * Field names whose values are censored wherever they appear, at the top level or one object down. Nothing in
 * Ferry passes them to a log line: this is the second line of defence, should a future line carry an object
 * wholesale.
 */
const SECRET_FIELDS = [
  'authorization',
  'api_key',
  'apiKey',
  'signing_secret',
  'signingSecret',
  'secret',
  'secrets',
  'password',
  'headers',
  'body',
  'sasl',
];

export const REDACTED_PATHS: readonly string[] = [...SECRET_FIELDS, ...SECRET_FIELDS.map((f) => `*.${f}`)];

/**
 * JSON lines on stderr (or `destination`), one per event, in the shape Ferry has always written:
 * `{"level":"info","time":"<ISO 8601>",…fields,"msg":"…"}`, with no pid or hostname added. Written synchronously,
 * so the last lines before a crash or `process.exit` are not lost; at the default level a busy process writes a
 * handful of lines a minute.
 */
export function createServiceLogger(opts: { level: LoggerLevel; destination?: DestinationStream }): ServiceLogger {
  const logger = pino(
    {
      level: opts.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    },
    opts.destination ?? pino.destination({ dest: 2, sync: true }),
  );
  return {
    log: (level, msg, fields) => {
      if (fields === undefined) logger[level](msg);
      else logger[level](fields, msg);
    },
    isEnabled: (level) => logger.isLevelEnabled(level),
    setLevel: (level) => {
      logger.level = level;
    },
  };
}
