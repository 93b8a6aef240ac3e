import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command line Ferry cannot act on; the CLI exits 2 and points at the command's `--help`. */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  constructor(
    message: string,
    /** The command whose usage helps, e.g. `project create`; empty for `ferry` itself. */
    readonly command: string,
  ) {
    super(message);
  }
}

/** One `--name VALUE` option of a command. */
export interface OptionSpec {
  readonly name: string;
  /** `string` takes any text, `count` a whole number (from `min` to `max`), `flag` no value. */
  readonly kind: 'string' | 'count' | 'flag';
  /** The value's placeholder in the usage text, e.g. `N`. */
  readonly value?: string;
  readonly help: string;
  readonly required?: boolean;
  /** The smallest value of a count: 0 when absent. */
  readonly min?: number;
  /** The largest value of a count: the largest safe integer when absent. */
  readonly max?: number;
}

export interface CommandSpec {
  /** The words that name it: `['project', 'create']`. */
  readonly words: readonly string[];
  /** A short line for the command lists, e.g. `revoke an API key`. */
  readonly summary: string;
  readonly options: readonly OptionSpec[];
  /** Words after the options, when the command takes any, e.g. `[COMMAND...]`. */
  readonly positionals?: string;
  /** More about the command, printed under its usage line. */
  readonly details?: string;
}

/** A command line parsed against its command's options, values already checked. */
export class ParsedArgs {
  constructor(
    private readonly values: ReadonlyMap<string, string | number | boolean>,
    readonly positionals: readonly string[],
    readonly help: boolean,
  ) {}

  string(name: string): string | undefined {
    const v = this.values.get(name);
    return typeof v === 'string' ? v : undefined;
  }

  /** A required string option; parsing already refused a command line without it. */
  required(name: string): string {
    const v = this.string(name);
    if (v === undefined) throw new Error(`--${name} is not a required string option`);
    return v;
  }

  count(name: string): number | undefined {
    const v = this.values.get(name);
    return typeof v === 'number' ? v : undefined;
  }

  flag(name: string): boolean {
    return this.values.get(name) === true;
  }
}

const HELP: OptionSpec = { name: 'help', kind: 'flag', help: 'show this help' };

/**
 * Parses a command's arguments strictly: an unknown option, a missing value or a stray word is an error naming
 * it, never ignored. `-h` and `--help` are understood by every command.
 */
export function parseCommandArgs(spec: CommandSpec, given: readonly string[]): ParsedArgs {
  const config = parseConfig(spec);
  const args = withNegativeCounts(spec, given);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ ...config, args: [...args], strict: true });
  } catch (err) {
    throw new UsageError(describeParseError(spec, args, err), commandName(spec));
  }
  const values = new Map<string, string | number | boolean>();
  const help = parsed.values.help === true;
  for (const option of spec.options) {
    const raw = parsed.values[option.name];
    if (raw === undefined) {
      if (option.required === true && !help) {
        throw new UsageError(`'${commandName(spec)}' needs --${option.name} ${option.value ?? ''}`.trimEnd(), commandName(spec));
      }
      continue;
    }
    values.set(option.name, option.kind === 'count' ? countValue(spec, option, String(raw)) : (raw as string | boolean));
  }
  return new ParsedArgs(values, parsed.positionals, help);
}

export function commandName(spec: CommandSpec): string {
  return spec.words.join(' ');
}

/** The command's usage text, as `--help` prints it. */
export function usageOf(spec: CommandSpec): string {
  const options = [...spec.options, HELP];
  const synopsis = [
    'ferry',
    ...spec.words,
    ...spec.options.filter((o) => o.required === true).map((o) => `--${o.name} ${o.value ?? ''}`.trimEnd()),
    ...(options.length > spec.options.filter((o) => o.required === true).length ? ['[options]'] : []),
    ...(spec.positionals !== undefined ? [spec.positionals] : []),
  ].join(' ');
  const lines = options.map((o) => {
    const flag = `${o.name === 'help' ? '-h, ' : ''}--${o.name}${o.kind === 'flag' ? '' : ` ${o.value ?? 'VALUE'}`}`;
    const range = o.kind === 'count' && o.max !== undefined ? `; ${o.min ?? 0} to ${o.max}` : '';
    return `  ${flag.padEnd(28)} ${o.help}${range}${o.required === true ? ' (required)' : ''}`;
  });
  const summary = `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`;
  return [`Usage: ${synopsis}`, '', summary, ...(spec.details !== undefined ? ['', spec.details] : []), '', 'Options:', ...lines].join('\n');
}

function parseConfig(spec: CommandSpec): ParseArgsConfig {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const o of spec.options) options[o.name] = { type: o.kind === 'flag' ? 'boolean' : 'string' };
  return { options, allowPositionals: spec.positionals !== undefined };
}

function countValue(spec: CommandSpec, option: OptionSpec, raw: string): number {
  if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${option.name} takes a whole number, got '${raw}'`, commandName(spec));
  const min = option.min ?? 0;
  const max = option.max ?? Number.MAX_SAFE_INTEGER;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${option.name} ${raw} is out of range: it takes a whole number from ${min} to ${max}`, commandName(spec));
  }
  return value;
}

/**
 * A count followed by a negative number (`--monthly-allowance -5`) is given that number as its value, so the
 * refusal says the value is out of range rather than that the option has none: no option of Ferry's is a digit,
 * so the number can mean nothing else.
 */
function withNegativeCounts(spec: CommandSpec, args: readonly string[]): string[] {
  const counts = new Set(spec.options.filter((o) => o.kind === 'count').map((o) => `--${o.name}`));
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (counts.has(arg) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * Says which argument a strict parse refused. The arguments are looked at again through `parseArgs`' own
 * tokens rather than by reading its message, whose wording is not an interface.
 */
function describeParseError(spec: CommandSpec, args: readonly string[], err: unknown): string {
  const config = parseConfig(spec);
  const known = config.options ?? {};
  const { tokens } = parseArgs({ ...config, args: [...args], strict: false, allowPositionals: true, tokens: true });
  const where = `for '${commandName(spec)}'`;
  for (const token of tokens) {
    if (token.kind === 'option') {
      const option = known[token.name];
      if (option === undefined) return `unknown option '${token.rawName}' ${where}`;
      if (option.type === 'string' && token.value === undefined) return `option '${token.rawName}' needs a value ${where}`;
      if (option.type === 'string' && token.inlineValue === false && token.value?.startsWith('-') === true) {
        return `option '${token.rawName}' needs a value ${where} (write ${token.rawName}=${token.value} for a value that starts with '-')`;
      }
      if (option.type === 'boolean' && token.inlineValue === true) return `option '${token.rawName}' takes no value ${where}`;
    } else if (token.kind === 'positional' && spec.positionals === undefined) {
      return `unexpected argument '${token.value}' ${where}`;
    }
  }
  const message = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
  return `${message} ${where}`;
}

/** A command: its spec, and what it does with its parsed arguments (the exit code). */
export interface Command extends CommandSpec {
  run(args: ParsedArgs): Promise<number>;
}
