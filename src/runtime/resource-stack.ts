type Close = () => Promise<void> | void;

/**
 * What the composition root has opened, closed in the reverse order: each resource is registered as it is
 * opened, so a stop, or a start that failed midway, closes exactly what is open, the last opened first, and no
 * second list has to be kept in step with the order of opening.
 *
 * Node's own AsyncDisposableStack (explicit resource management) is not in Node 20, which Ferry runs on; a
 * polyfill would be a dependency for what this small class does.
 */
export class ResourceStack {
  private readonly closers: Close[] = [];
  private closing: Promise<void> | undefined;

  /** Registers how to close what was just opened: it is closed before everything registered earlier. */
  defer(close: Close): void {
    if (this.closing !== undefined) throw new Error('The resource stack is already closed.');
    this.closers.push(close);
  }

  /**
   * Closes everything registered, the last first, each after the one before it has finished. Every closer runs,
   * even when one before it failed (a storage that fails to close must not keep telemetry open); the first
   * failure is thrown once all have run. Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      let failure: { readonly error: unknown } | undefined;
      for (const close of this.closers.splice(0).reverse()) {
        try {
          await close();
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure !== undefined) throw failure.error;
    })();
    return this.closing;
  }
}

/**
 * Runs `open` with a new stack. When it fails midway, what it had opened is closed, the last first, and its own
 * error is thrown: the caller needs to know why the start failed, not that something then failed to close.
 */
export async function openOnStack<T>(open: (resources: ResourceStack) => Promise<T>): Promise<{ readonly opened: T; readonly resources: ResourceStack }> {
  const resources = new ResourceStack();
  try {
    return { opened: await open(resources), resources };
  } catch (err) {
    await resources.close().catch(() => undefined);
    throw err;
  }
}
