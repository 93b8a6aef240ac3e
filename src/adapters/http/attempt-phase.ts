import type { Dispatcher } from 'undici';

export type AttemptPhase = 'connect' | 'headers' | 'body';

/** Where one attempt currently is, so a deadline that fires can say which phase ran out of time. */
export class PhaseTracker {
  phase: AttemptPhase = 'connect';
}

/**
 * A dispatcher that behaves like `agent` but moves the tracker to `headers` as soon as undici starts writing the
 * request onto a connected socket. Until then the attempt is connecting (or waiting for a free connection to the
 * origin, which undici does not tell apart and which is the same thing from the destination's point of view).
 */
export function trackingDispatcher(agent: Dispatcher, tracker: PhaseTracker): Dispatcher {
  return agent.compose((dispatch) => (options, handler) => dispatch(options, new PhaseObservingHandler(handler, tracker)));
}

class PhaseObservingHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly tracker: PhaseTracker,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.tracker.phase = 'headers';
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.tracker.phase = 'body';
    this.inner.onResponseStart?.(...args);
  }

  onResponseData(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.inner.onResponseData?.(...args);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.inner.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.inner.onResponseError?.(...args);
  }
}
