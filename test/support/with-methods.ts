/**
 * `target` with some methods replaced, for tests that make a real store fail or count its calls; every other
 * method runs on `target` itself, so its private state stays its own.
 */
export function withMethods<T extends object>(target: T, replaced: Partial<T>): T {
  return new Proxy(target, {
    get(t, name) {
      if (Object.hasOwn(replaced, name)) return replaced[name as keyof T];
      const value: unknown = Reflect.get(t, name, t);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
    },
  });
}
