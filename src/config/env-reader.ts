import { accessSync, constants, statSync } from 'node:fs';
import { closestMatch } from './edit-distance.js';
import { CONFIG_VARIABLES, configVariable, fallbackOf, type VariableName } from './variables.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Readonly<Record<string, string | undefined>>;

const PREFIX = 'FERRY_';

/**
 * Refuses any FERRY_* variable that is not in the list: a misspelt name would otherwise be ignored without a
 * word, and the setting it meant to change would silently keep its default.
 */
export function checkNoUnknownVariables(env: Env): void {
  const unknown = Object.keys(env)
    .filter((name) => name.startsWith(PREFIX) && configVariable(name) === undefined)
    .sort();
  if (unknown.length === 0) return;
  const known = CONFIG_VARIABLES.map((v) => v.name.slice(PREFIX.length));
  const described = unknown.map((name) => {
    const match = closestMatch(name.slice(PREFIX.length), known);
    return match === undefined ? `unknown variable ${name}` : `unknown variable ${name} (did you mean ${PREFIX}${match}?)`;
  });
  throw new ConfigError(`${described.join('; ')}; \`ferry config --help\` lists every variable`);
}

/** Reads variables through the declarative list, so each one's default lives in one place. */
export class EnvReader {
  constructor(private readonly env: Env) {}

  /** Whether the environment itself sets the variable (an empty value counts as unset). */
  isSet(name: VariableName): boolean {
    const v = this.env[name];
    return v !== undefined && v !== '';
  }

  /** The variable's value, else its default; undefined when it is unset and has none. */
  optional(name: VariableName): string | undefined {
    return this.isSet(name) ? this.env[name]! : fallbackOf(configVariable(name)!);
  }

  text(name: VariableName): string {
    const v = this.optional(name);
    if (v === undefined) throw new Error(`${name} has no default; read it with optional()`);
    return v;
  }

  int(name: VariableName, min: number, max: number): number {
    const v = this.text(name);
    return this.parseInt(name, v, min, max);
  }

  optionalInt(name: VariableName, min: number, max: number): number | undefined {
    const v = this.optional(name);
    return v === undefined ? undefined : this.parseInt(name, v, min, max);
  }

  port(name: VariableName): number {
    return this.int(name, 0, 65535);
  }

  bool(name: VariableName): boolean {
    const v = this.text(name);
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    throw new ConfigError(`${name} must be true or false, got "${v}"`);
  }

  oneOf<const T extends string>(name: VariableName, allowed: readonly T[]): T {
    const v = this.text(name);
    const match = allowed.find((a) => a === v);
    if (match === undefined) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
    return match;
  }

  /**
   * A file the process will read later (a certificate, a key, a CA bundle), checked now: a wrong path then
   * stops start-up with the variable named, instead of failing deep inside a TLS or driver call.
   */
  readableFile(name: VariableName): string | null {
    const path = this.optional(name);
    if (path === undefined) return null;
    let problem: string | null = null;
    try {
      if (!statSync(path).isFile()) problem = 'is not a file';
      else accessSync(path, constants.R_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problem = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`;
    }
    if (problem !== null) throw new ConfigError(`${name}=${path}: the file ${problem}`);
    return path;
  }

  private parseInt(name: VariableName, v: string, min: number, max: number): number {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
    }
    return Number(v);
  }
}
