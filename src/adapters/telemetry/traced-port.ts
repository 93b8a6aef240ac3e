import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';

/**
 * Wraps every method of a port object (a store, a notifier) so that each call is a client span named
 * `<name>.<method>`, ended when its promise settles. The port's own methods run unchanged on the original object,
 * and each method's wrapper is made once, not per call.
 */
export function tracedPort<T extends object>(port: T, name: string, tracer: Tracer, attributes: Attributes = {}): T {
  const wrappers = new Map<string | symbol, unknown>();
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'constructor') return value;
      let wrapper = wrappers.get(property);
      if (wrapper === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        const spanName = `${name}.${property}`;
        wrapper = (...args: unknown[]) =>
          tracer.startActiveSpan(spanName, { kind: SpanKind.CLIENT, attributes }, (span) => endWith(span, () => method.apply(target, args)));
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

/** Runs `work` and ends the span when it returns or, for a promise, when the promise settles. */
export function endWith<R>(span: Span, work: () => R): R {
  let result: R;
  try {
    result = work();
  } catch (err) {
    failed(span, err);
    throw err;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        failed(span, err);
        throw err;
      },
    ) as R;
  }
  span.end();
  return result;
}

/** Marks the span failed with the error's name and message (never its data), then ends it. */
export function failed(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: `${error.name}: ${error.message}` });
  span.end();
}
