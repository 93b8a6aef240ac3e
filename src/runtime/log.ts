import { createServiceLogger } from '../adapters/telemetry/logger.js';
import type { Log } from '../ports/telemetry.js';

/**
 * The process's one logger: structured JSON lines on stderr. It starts at `info`, which is what commands other
 * than `serve` need; `startService` sets the configured level (`FERRY_LOG_LEVEL`) before anything else logs.
 * Everything else receives `log` from the composition root; only the CLI imports it from here.
 */
export const logger = createServiceLogger({ level: 'info' });

export const log: Log = logger.log;
