import type { BudgetState, HoldReason } from '../../domain/flow/budgets.js';
import { HOLD_REASONS } from '../../domain/flow/budgets.js';
import { cellCounter, type CounterCell } from './metric-cells.js';
import type { Gauge, Registry } from 'prom-client';

/** What these metrics need of the service's registry. */
interface MetricsRegistry {
  readonly registry: Registry;
  gauge(name: string, help: string, labelNames: readonly string[], collect: (gauge: Gauge) => void): void;
}

/** The live queue budgets of this process, as the metrics read them when scraped. */
export type QueueBudgetReader = () => Iterable<{ readonly name: string; readonly state: BudgetState }>;

/**
 * Flow-control metrics per queue name (summed over projects). Never per flow key: keys are as many as callers
 * make up, and a series each would grow without bound.
 *
 * - `ferry_flow_started_total{queue}` and `ferry_flow_held_total{queue,reason}`: attempts started, and requests a
 *   budget held back (handed back until it admits them), counted as they happen.
 * - `ferry_flow_waiting{queue,reason}`, `ferry_flow_in_flight{queue}`, `ferry_flow_admitted_rate{queue}`: computed
 *   when scraped from the queues' live budgets (the admitted rate only for queues with a rate).
 */
export class BudgetMetrics {
  private readonly started: (labels: { queue: string }) => CounterCell;
  private readonly held: (labels: { queue: string; reason: string }) => CounterCell;
  private readonly startedCells = new Map<string, CounterCell>();
  private readonly heldCells = new Map<string, Record<HoldReason, CounterCell>>();

  constructor(private readonly metrics: MetricsRegistry) {
    this.started = cellCounter(metrics.registry, 'ferry_flow_started_total', 'Attempts started, by queue.', ['queue']);
    this.held = cellCounter(
      metrics.registry,
      'ferry_flow_held_total',
      'Requests a flow-control budget (their queue or one of their flow keys) held back, by queue and reason: rate, concurrency, paused.',
      ['queue', 'reason'],
    );
  }

  attemptStarted(queue: string): void {
    let cell = this.startedCells.get(queue);
    if (cell === undefined) this.startedCells.set(queue, (cell = this.started({ queue })));
    cell.inc();
  }

  attemptHeld(queue: string, reason: HoldReason): void {
    let cells = this.heldCells.get(queue);
    if (cells === undefined) {
      cells = Object.fromEntries(HOLD_REASONS.map((r) => [r, this.held({ queue, reason: r })])) as Record<HoldReason, CounterCell>;
      this.heldCells.set(queue, cells);
    }
    cells[reason].inc();
  }

  /** Registers the gauges read from the live queue budgets. */
  watch(read: QueueBudgetReader): void {
    const sums = (): Map<string, { waiting: Record<HoldReason, number>; inFlight: number; admitted: number | null }> => {
      const byName = new Map<string, { waiting: Record<HoldReason, number>; inFlight: number; admitted: number | null }>();
      for (const { name, state } of read()) {
        const sum = byName.get(name) ?? { waiting: { rate: 0, concurrency: 0, paused: 0 }, inFlight: 0, admitted: null };
        for (const r of HOLD_REASONS) sum.waiting[r] += state.waiting[r];
        sum.inFlight += state.inFlight;
        if (state.admittedRate !== null) sum.admitted = (sum.admitted ?? 0) + state.admittedRate;
        byName.set(name, sum);
      }
      return byName;
    };
    this.metrics.gauge('ferry_flow_waiting', 'Requests held back by flow control, by queue and reason (this process).', ['queue', 'reason'], (gauge) => {
      gauge.reset();
      for (const [queue, s] of sums()) for (const reason of HOLD_REASONS) gauge.set({ queue, reason }, s.waiting[reason]);
    });
    this.metrics.gauge('ferry_flow_in_flight', 'Attempts in flight, by queue (this process).', ['queue'], (gauge) => {
      gauge.reset();
      for (const [queue, s] of sums()) gauge.set({ queue }, s.inFlight);
    });
    this.metrics.gauge(
      'ferry_flow_admitted_rate',
      "Attempts per period a rate-limited queue admits now (this process's share): its limit, lower while destinations have slowed it.",
      ['queue'],
      (gauge) => {
        gauge.reset();
        for (const [queue, s] of sums()) if (s.admitted !== null) gauge.set({ queue }, s.admitted);
      },
    );
  }
}
