/** Parses `--name value` and `--flag` options after the command words. */
export function parseOptions(argv: readonly string[]): Map<string, string> {
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new UsageError(`Unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    if (eq > 0) {
      options.set(arg.slice(2, eq), arg.slice(eq + 1));
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        options.set(arg.slice(2), 'true');
      } else {
        options.set(arg.slice(2), next);
        i++;
      }
    }
  }
  return options;
}

export function intOption(options: Map<string, string>, name: string): number | undefined {
  const v = options.get(name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(v);
}

export function requiredOption(options: Map<string, string>, name: string): string {
  const v = options.get(name);
  if (v === undefined || v === 'true') throw new UsageError(`--${name} is required`);
  return v;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}
