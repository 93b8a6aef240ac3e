import { FerryError } from '../../domain/errors.js';

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** INVALID_FIELD about the value at a JSON path; the empty path is the body itself. */
export function invalid(path: string, why: string): FerryError {
  return new FerryError('INVALID_FIELD', path === '' ? `The body ${why}.` : `${path} ${why}.`, path === '' ? undefined : path);
}

/** Sets a key on a plain object even when it is `__proto__`, which an assignment would treat as the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
