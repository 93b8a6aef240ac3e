import { readFileSync } from 'node:fs';
import { CONFIG_VARIABLES, effectiveConfig } from '../config/config.js';
import type { Command } from './args.js';
import { printJson } from './output.js';

/** The package's version, read from its package.json (two levels up, from src/cli and from dist/cli alike). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

const version: Command = {
  words: ['version'],
  summary: "print Ferry's version",
  options: [],
  async run() {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  },
};

function describeVariables(): string {
  const lines = CONFIG_VARIABLES.map((v) => {
    const fallback = typeof v.fallback === 'function' ? v.fallback() : v.fallback;
    const shown = fallback === null ? 'unset' : fallback;
    const scope = 'distributedOnly' in v ? ' [cassandra]' : '';
    return `  ${v.name.padEnd(34)} ${v.description} (default: ${shown})${scope}`;
  });
  return ['Variables:', ...lines].join('\n');
}

const config: Command = {
  words: ['config'],
  summary: 'print the effective configuration (secrets masked)',
  details:
    'Prints, as JSON, every FERRY_* variable with the value the service would run with and whether it came from ' +
    `the environment or the default. It fails as the service would on a wrong setting.\n\n${describeVariables()}`,
  options: [],
  async run() {
    printJson(effectiveConfig());
    return 0;
  },
};

export const INFO_COMMANDS: readonly Command[] = [config, version];
