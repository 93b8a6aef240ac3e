import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
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
import type { HoldReason } from '../../domain/flow/budgets.js';
import { BudgetMetrics } from './budget-metrics.js';
import { CellHistogram, cellCounter, type CounterCell, type HistogramCell } from './metric-cells.js';

const ENDPOINTS: readonly AcceptEndpoint[] = ['send', 'create', 'batch', 'replay', 'schedule'];
const ACCEPTED_AS: readonly Acceptance['status'][] = ['queued', 'scheduled'];
const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['succeeded', 'retry_scheduled', 'failed', 'cancelled', 'claim_lost'];
const ATTEMPT_RESULTS: readonly AttemptResult[] = ['succeeded', 'failed', 'timed_out', 'errored'];
const OCCURRENCE_OUTCOMES: readonly OccurrenceOutcome[] = ['enqueued', 'skipped_usage_limit', 'skipped_overlap', 'missed', 'failed'];
const ALLOWANCES: readonly AllowanceKind[] = ['monthly', 'schedules'];
/** The stores of the Backend port, so their error counters exist (at 0) from the start. */
const STORES = ['requests', 'schedules', 'idempotency', 'usage', 'projects', 'secrets', 'budgets', 'bulkActions'];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/** API calls: from a cached answer (well under a millisecond) to a storage write waiting out a timeout. */
const API_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** An attempt's exchange: a fast local receiver up to the 5-minute timeout. */
const ATTEMPT_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Retry delays: a second (or a Retry-After of 0) up to the default one-hour cap and beyond. */
const RETRY_SECONDS = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];
/** How late an attempt starts: on time is a few milliseconds; minutes mean delivery is falling behind. */
const LATENESS_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/** A cell per value of one label, made up front. */
function cellsBy<K extends string, C>(keys: readonly K[], make: (key: K) => C): Record<K, C> {
  return Object.fromEntries(keys.map((k) => [k, make(k)])) as Record<K, C>;
}

/**
 * The service's metrics in a registry of their own (never prom-client's global one), in the Prometheus text
 * format. Every labelled series the hot paths touch is a cell made once and kept (see `metric-cells.ts`): an
 * update builds no label object or string.
 */
export class PrometheusMetrics implements ServiceMetrics {
  readonly registry = new Registry();
  private readonly acceptedCells: Record<AcceptEndpoint, Record<Acceptance['status'], CounterCell>>;
  private readonly deliveries: Record<DeliveryOutcome, CounterCell>;
  private readonly attempts: Record<AttemptResult, HistogramCell>;
  private readonly occurrences: Record<OccurrenceOutcome, CounterCell>;
  private readonly allowances: Record<AllowanceKind, CounterCell>;
  private readonly storageErrorCell: (labels: { store: string }) => CounterCell;
  private readonly storageErrors = new Map<string, CounterCell>();
  private readonly kafkaErrors: CounterCell;
  private readonly retryDelays: HistogramCell;
  private readonly lateness: HistogramCell;
  private readonly apiDurations: CellHistogram;
  /** Flow control per queue. */
  readonly budgets: BudgetMetrics;
  /** route → protocol → status class → cell, filled on first use (routes are a fixed, small set). */
  private readonly apiCells = new Map<string, Map<CallProtocol, HistogramCell[]>>();

  constructor(opts: { defaultMetrics: boolean } = { defaultMetrics: true }) {
    const registry = this.registry;
    if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });

    const accepted = cellCounter(
      registry,
      'ferry_requests_accepted_total',
      'Requests answered by an accept call (send, create, batch items, replay) or created by a schedule occurrence, by the status they were answered with.',
      ['endpoint', 'outcome'],
    );
    this.acceptedCells = cellsBy(ENDPOINTS, (endpoint) => cellsBy(ACCEPTED_AS, (outcome) => accepted({ endpoint, outcome })));

    this.budgets = new BudgetMetrics(this);
    this.apiDurations = new CellHistogram(
      registry,
      'ferry_api_request_duration_seconds',
      'API calls, from routing to the answer, by route template, protocol and HTTP status class.',
      API_SECONDS,
    );

    const deliveries = cellCounter(
      registry,
      'ferry_deliveries_total',
      'Attempt outcomes recorded, by what they did to the request; claim_lost: another process took the request over.',
      ['outcome'],
    );
    this.deliveries = cellsBy(DELIVERY_OUTCOMES, (outcome) => deliveries({ outcome }));

    const attempts = new CellHistogram(registry, 'ferry_attempt_duration_seconds', 'Delivery attempts: the exchange with the destination, by how it ended.', ATTEMPT_SECONDS);
    this.attempts = cellsBy(ATTEMPT_RESULTS, (result) => attempts.cell({ result }));

    this.retryDelays = new CellHistogram(registry, 'ferry_retry_delay_seconds', 'Delays chosen before a next attempt (backoff or Retry-After).', RETRY_SECONDS).cell();
    this.lateness = new CellHistogram(
      registry,
      'ferry_timer_lateness_seconds',
      'How long after falling due a first attempt started (its scheduled time, or its acceptance when due at once).',
      LATENESS_SECONDS,
    ).cell();

    const occurrences = cellCounter(
      registry,
      'ferry_schedule_occurrences_total',
      'Schedule occurrences, by outcome: enqueued, skipped_usage_limit (monthly allowance), missed (too late to fire), failed (tried again).',
      ['outcome'],
    );
    this.occurrences = cellsBy(OCCURRENCE_OUTCOMES, (outcome) => occurrences({ outcome }));

    const allowances = cellCounter(
      registry,
      'ferry_allowance_rejections_total',
      'Work refused by a project allowance: monthly (API calls and skipped occurrences) or schedules.',
      ['allowance'],
    );
    this.allowances = cellsBy(ALLOWANCES, (allowance) => allowances({ allowance }));

    this.storageErrorCell = cellCounter(registry, 'ferry_storage_errors_total', 'Storage calls that failed because storage could not serve them, by store.', ['store']);
    for (const store of STORES) this.storageErrors.set(store, this.storageErrorCell({ store }));

    this.kafkaErrors = cellCounter(
      registry,
      'ferry_kafka_errors_total',
      'Failures the Kafka client or the Kafka adapters reported (connections, sends, shard takes).',
      [],
    )({});
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
    let byProtocol = this.apiCells.get(route);
    if (byProtocol === undefined) this.apiCells.set(route, (byProtocol = new Map()));
    let byClass = byProtocol.get(protocol);
    if (byClass === undefined) byProtocol.set(protocol, (byClass = []));
    const cls = Math.min(4, Math.max(0, Math.trunc(status / 100) - 1));
    const cell = (byClass[cls] ??= this.apiDurations.cell({ route, protocol, code: STATUS_CLASSES[cls]! }));
    cell.observe(durationMs / 1000);
  }

  accepted(endpoint: AcceptEndpoint, status: Acceptance['status'], count: number): void {
    this.acceptedCells[endpoint][status].inc(count);
  }

  attemptStarted(latenessMs: number | null): void {
    // Clocks of different processes may disagree by a little: an attempt never starts before it is due.
    if (latenessMs !== null) this.lateness.observe(Math.max(0, latenessMs) / 1000);
  }

  flowStarted(queue: string): void {
    this.budgets.attemptStarted(queue);
  }

  flowHeld(queue: string, reason: HoldReason): void {
    this.budgets.attemptHeld(queue, reason);
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
    let cell = this.storageErrors.get(store);
    if (cell === undefined) this.storageErrors.set(store, (cell = this.storageErrorCell({ store })));
    cell.inc();
  }

  kafkaError(): void {
    this.kafkaErrors.inc();
  }
}
