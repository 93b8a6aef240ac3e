import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Acceptance } from '../../domain/request.js';
import type {
  AcceptEndpoint,
  AllowanceKind,
  AttemptResult,
  CallProtocol,
  DeliveryOutcome,
  OccurrenceOutcome,
  ServiceMetrics,
} from '../../ports/telemetry.js';

type CounterChild = ReturnType<Counter['labels']>;
type HistogramChild = ReturnType<Histogram['labels']>;

const ENDPOINTS: readonly AcceptEndpoint[] = ['send', 'create', 'batch', 'replay', 'schedule'];
const ACCEPTED_AS: readonly Acceptance['status'][] = ['queued', 'scheduled'];
const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['succeeded', 'retry_scheduled', 'failed', 'cancelled', 'claim_lost'];
const ATTEMPT_RESULTS: readonly AttemptResult[] = ['succeeded', 'failed', 'timed_out', 'errored'];
const OCCURRENCE_OUTCOMES: readonly OccurrenceOutcome[] = ['enqueued', 'skipped_usage_limit', 'missed', 'failed'];
const ALLOWANCES: readonly AllowanceKind[] = ['monthly', 'schedules'];
/** The stores of the Backend port, so their error counters exist (at 0) from the start. */
const STORES = ['requests', 'schedules', 'idempotency', 'usage', 'projects', 'secrets'];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/** API calls: from a cached answer (well under a millisecond) to a storage write waiting out a timeout. */
const API_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** An attempt's exchange: a fast local receiver up to the 5-minute timeout. */
const ATTEMPT_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Retry delays: a second (or a Retry-After of 0) up to the default one-hour cap and beyond. */
const RETRY_SECONDS = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];
/** How late an attempt starts: on time is a few milliseconds; minutes mean delivery is falling behind. */
const LATENESS_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/** Children of a labelled metric, made once per label value so the hot paths never pass label objects. */
function children<K extends string>(keys: readonly K[], make: (key: K) => CounterChild): Record<K, CounterChild> {
  return Object.fromEntries(keys.map((k) => [k, make(k)])) as Record<K, CounterChild>;
}

/**
 * The service's metrics in a registry of their own (never prom-client's global one), in the Prometheus text
 * format. Every labelled series the hot paths touch is made once and kept: a call increments a kept child, and
 * builds no label object or string.
 */
export class PrometheusMetrics implements ServiceMetrics {
  readonly registry = new Registry();
  private readonly acceptedChildren: Record<AcceptEndpoint, Record<Acceptance['status'], CounterChild>>;
  private readonly deliveries: Record<DeliveryOutcome, CounterChild>;
  private readonly attempts: Record<AttemptResult, HistogramChild>;
  private readonly occurrences: Record<OccurrenceOutcome, CounterChild>;
  private readonly allowances: Record<AllowanceKind, CounterChild>;
  private readonly storageErrors: Counter;
  private readonly storageErrorsByStore = new Map<string, CounterChild>();
  private readonly kafkaErrors: Counter;
  private readonly retryDelays: Histogram;
  private readonly lateness: Histogram;
  private readonly apiDurations: Histogram;
  /** route → protocol → status class → child, filled on first use (routes are a fixed, small set). */
  private readonly apiChildren = new Map<string, Map<CallProtocol, HistogramChild[]>>();

  constructor(opts: { defaultMetrics: boolean } = { defaultMetrics: true }) {
    const registers = [this.registry];
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });

    const accepted = new Counter({
      name: 'ferry_requests_accepted_total',
      help: 'Requests answered by an accept call (send, create, batch items, replay) or created by a schedule occurrence, by the status they were answered with.',
      labelNames: ['endpoint', 'outcome'],
      registers,
    });
    this.acceptedChildren = Object.fromEntries(
      ENDPOINTS.map((e) => [e, children(ACCEPTED_AS, (s) => accepted.labels(e, s))]),
    ) as Record<AcceptEndpoint, Record<Acceptance['status'], CounterChild>>;

    this.apiDurations = new Histogram({
      name: 'ferry_api_request_duration_seconds',
      help: 'API calls, from routing to the answer, by route template, protocol and HTTP status class.',
      labelNames: ['route', 'protocol', 'code'],
      buckets: API_SECONDS,
      registers,
    });

    const deliveries = new Counter({
      name: 'ferry_deliveries_total',
      help: 'Attempt outcomes recorded, by what they did to the request; claim_lost: another process took the request over.',
      labelNames: ['outcome'],
      registers,
    });
    this.deliveries = children(DELIVERY_OUTCOMES, (o) => deliveries.labels(o));

    const attempts = new Histogram({
      name: 'ferry_attempt_duration_seconds',
      help: 'Delivery attempts: the exchange with the destination, by how it ended.',
      labelNames: ['result'],
      buckets: ATTEMPT_SECONDS,
      registers,
    });
    this.attempts = Object.fromEntries(ATTEMPT_RESULTS.map((r) => [r, attempts.labels(r)])) as Record<AttemptResult, HistogramChild>;

    this.retryDelays = new Histogram({
      name: 'ferry_retry_delay_seconds',
      help: 'Delays chosen before a next attempt (backoff or Retry-After).',
      buckets: RETRY_SECONDS,
      registers,
    });
    this.lateness = new Histogram({
      name: 'ferry_timer_lateness_seconds',
      help: 'How long after falling due a first attempt started (its scheduled time, or its acceptance when due at once).',
      buckets: LATENESS_SECONDS,
      registers,
    });

    const occurrences = new Counter({
      name: 'ferry_schedule_occurrences_total',
      help: 'Schedule occurrences, by outcome: enqueued, skipped_usage_limit (monthly allowance), missed (too late to fire), failed (tried again).',
      labelNames: ['outcome'],
      registers,
    });
    this.occurrences = children(OCCURRENCE_OUTCOMES, (o) => occurrences.labels(o));

    const allowances = new Counter({
      name: 'ferry_allowance_rejections_total',
      help: 'Work refused by a project allowance: monthly (API calls and skipped occurrences) or schedules.',
      labelNames: ['allowance'],
      registers,
    });
    this.allowances = children(ALLOWANCES, (a) => allowances.labels(a));

    this.storageErrors = new Counter({
      name: 'ferry_storage_errors_total',
      help: 'Storage calls that failed because storage could not serve them, by store.',
      labelNames: ['store'],
      registers,
    });
    for (const store of STORES) this.storageErrorsByStore.set(store, this.storageErrors.labels(store));

    this.kafkaErrors = new Counter({
      name: 'ferry_kafka_errors_total',
      help: 'Failures the Kafka client or the Kafka adapters reported (connections, sends, shard takes).',
      registers,
    });
  }

  /** The registry's content, in the text format; `contentType` is what to answer it with. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** A gauge whose value is computed when scraped. */
  gauge(name: string, help: string, labelNames: readonly string[], collect: (gauge: Gauge) => void | Promise<void>): void {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      collect() {
        return collect(this);
      },
    });
  }

  apiCall(route: string, protocol: CallProtocol, status: number, durationMs: number): void {
    let byProtocol = this.apiChildren.get(route);
    if (byProtocol === undefined) this.apiChildren.set(route, (byProtocol = new Map()));
    let byClass = byProtocol.get(protocol);
    if (byClass === undefined) byProtocol.set(protocol, (byClass = []));
    const cls = Math.min(4, Math.max(0, Math.trunc(status / 100) - 1));
    const child = (byClass[cls] ??= this.apiDurations.labels(route, protocol, STATUS_CLASSES[cls]!));
    child.observe(durationMs / 1000);
  }

  accepted(endpoint: AcceptEndpoint, status: Acceptance['status'], count: number): void {
    this.acceptedChildren[endpoint][status].inc(count);
  }

  attemptStarted(latenessMs: number | null): void {
    // Clocks of different processes may disagree by a little: an attempt never starts before it is due.
    if (latenessMs !== null) this.lateness.observe(Math.max(0, latenessMs) / 1000);
  }

  attemptFinished(result: AttemptResult, durationMs: number): void {
    this.attempts[result].observe(durationMs / 1000);
  }

  delivered(outcome: DeliveryOutcome, retryDelayMs: number | null): void {
    this.deliveries[outcome].inc();
    if (retryDelayMs !== null) this.retryDelays.observe(retryDelayMs / 1000);
  }

  occurrence(outcome: OccurrenceOutcome): void {
    this.occurrences[outcome].inc();
  }

  allowanceRejected(kind: AllowanceKind): void {
    this.allowances[kind].inc();
  }

  storageError(store: string): void {
    let child = this.storageErrorsByStore.get(store);
    if (child === undefined) this.storageErrorsByStore.set(store, (child = this.storageErrors.labels(store)));
    child.inc();
  }

  kafkaError(): void {
    this.kafkaErrors.inc();
  }
}
