#!/usr/bin/env node
import { ConfigError } from '../config/config.js';
import { closestMatch } from '../config/edit-distance.js';
import { FerryError } from '../domain/errors.js';
import { StorageUnavailable } from '../ports/errors.js';
import { ADMIN_COMMANDS } from './admin-commands.js';
import { commandName, parseCommandArgs, usageOf, UsageError, type Command } from './args.js';
import { INFO_COMMANDS } from './info-commands.js';
import { CliFailure } from './output.js';
import { serveCommand } from './serve-command.js';

// Exit codes: 0 done; 1 the command failed (storage, a data directory in use, a port taken, a domain error);
// 2 the command line or the configuration is wrong, and nothing was done.

const helpCommand: Command = {
  words: ['help'],
  summary: 'print the usage of Ferry or of one command',
  options: [],
  positionals: '[COMMAND...]',
  async run(args) {
    const words = args.positionals;
    if (words.length === 0) {
      process.stdout.write(`${overview()}\n`);
      return 0;
    }
    const found = findCommand(words);
    if (found.rest.length > 0) throw new UsageError(`unknown command '${words.join(' ')}'`, '');
    process.stdout.write(`${found.command === null ? groupUsage(found.group) : usageOf(found.command)}\n`);
    return 0;
  },
};

const COMMANDS: readonly Command[] = [serveCommand, ...ADMIN_COMMANDS, ...INFO_COMMANDS, helpCommand];

function overview(): string {
  const lines = COMMANDS.map((c) => `  ${[...c.words, ...(c.positionals ? [c.positionals] : [])].join(' ').padEnd(24)} ${c.summary}`);
  return [
    'Usage: ferry <command> [options]',
    '',
    'Ferry, a durable HTTP delivery and scheduling service. Configuration comes from FERRY_* environment variables.',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'ferry <command> --help' for a command's options, 'ferry --version' for the version.",
  ].join('\n');
}

function groupUsage(group: string): string {
  const members = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === group);
  return [`Usage: ferry ${group} <command> [options]`, '', 'Commands:', ...members.map((c) => `  ${commandName(c).padEnd(24)} ${c.summary}`)].join(
    '\n',
  );
}

/** The command `words` start with: a command, or a group (`project`) when they name no member of it. */
function findCommand(words: readonly string[]): { command: Command; rest: string[] } | { command: null; group: string; rest: string[] } {
  const [first = '', second] = words;
  const single = COMMANDS.find((c) => c.words.length === 1 && c.words[0] === first);
  if (single !== undefined) return { command: single, rest: words.slice(1) };
  const members = COMMANDS.filter((c) => c.words.length === 2 && c.words[0] === first);
  if (members.length === 0) {
    const match = closestMatch(first, [...new Set(COMMANDS.map((c) => c.words[0]!))]);
    throw new UsageError(`unknown command '${first}'${match === undefined ? '' : ` (did you mean '${match}'?)`}`, '');
  }
  const member = members.find((c) => c.words[1] === second);
  if (member !== undefined) return { command: member, rest: words.slice(2) };
  if (second === undefined || second.startsWith('-')) return { command: null, group: first, rest: words.slice(1) };
  const match = closestMatch(second, members.map((c) => c.words[1]!));
  throw new UsageError(`unknown command '${first} ${second}'${match === undefined ? '' : ` (did you mean '${first} ${match}'?)`}`, first);
}

async function main(argv: readonly string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined) {
    process.stderr.write(`${overview()}\n`);
    return 2;
  }
  if (first === '--help' || first === '-h') return run(helpCommand, argv.slice(1));
  if (first === '--version') return run(INFO_COMMANDS.find((c) => c.words[0] === 'version')!, argv.slice(1));
  if (first.startsWith('-')) throw new UsageError(`unknown option '${first}'`, '');
  const found = findCommand(argv);
  if (found.command !== null) return run(found.command, found.rest);
  const [option] = found.rest;
  if (option === '--help' || option === '-h') {
    process.stdout.write(`${groupUsage(found.group)}\n`);
    return 0;
  }
  const members = COMMANDS.filter((c) => c.words[0] === found.group).map((c) => c.words[1]);
  throw new UsageError(`'${found.group}' needs a command: ${members.join(', ')}`, found.group);
}

async function run(command: Command, args: readonly string[]): Promise<number> {
  const parsed = parseCommandArgs(command, args);
  if (parsed.help) {
    process.stdout.write(`${usageOf(command)}\n`);
    return 0;
  }
  return command.run(parsed);
}

/** One line for what went wrong (plus where to find usage); a stack trace only for what nobody foresaw. */
function report(err: unknown): number {
  if (err instanceof UsageError) {
    const help = err.command === '' ? 'ferry --help' : `ferry ${err.command} --help`;
    process.stderr.write(`ferry: ${err.message}\nRun '${help}' for usage.\n`);
    return 2;
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`ferry: ${err.message}\n`);
    return 2;
  }
  if (err instanceof CliFailure || err instanceof StorageUnavailable) {
    process.stderr.write(`ferry: ${err.message}\n`);
    return 1;
  }
  if (err instanceof FerryError) {
    process.stderr.write(`ferry: ${err.code}: ${err.message}\n`);
    return 1;
  }
  process.stderr.write(`ferry: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => process.exit(report(err)),
);
