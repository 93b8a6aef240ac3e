import { Counter, type Registry } from 'prom-client';

/*
 * Counters and histograms whose update on a hot path is a few additions on a kept cell; prom-client reads the
 * cells when scraped and writes the exposition format. prom-client's own label children hash their label values
 * on every update (measured here: about 0.3 µs a counter increment, 0.6 µs a histogram observation). With an API
 * call and up to four delivery events per accepted request, that came to about a tenth of the CPU the accept
 * benchmark spends per request; cells bring it to a few dozen nanoseconds.
 */

type Labels = Readonly<Record<string, string>>;

/** One labelled series of a counter. */
export class CounterCell {
  /** Counted since the last scrape, not yet handed to prom-client. */
  pending = 0;

  constructor(readonly child: ReturnType<Counter['labels']>) {}

  inc(by = 1): void {
    this.pending += by;
  }
}

/** A prom-client counter whose series are cells, flushed into it as it is scraped. */
export function cellCounter(registry: Registry, name: string, help: string, labelNames: readonly string[]): (labels: Labels) => CounterCell {
  const cells: CounterCell[] = [];
  const counter = new Counter({
    name,
    help,
    labelNames: [...labelNames],
    registers: [registry],
    collect() {
      for (const cell of cells) {
        cell.child.inc(cell.pending);
        cell.pending = 0;
      }
    },
  });
  return (labels) => {
    const cell = new CounterCell(counter.labels(labels));
    cells.push(cell);
    return cell;
  };
}

/** One labelled series of a histogram: observations per bucket (not cumulative), their sum and count. */
export class HistogramCell {
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Labels,
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }

  /** Observations at or below each bound, in bound order. */
  cumulative(): number[] {
    let total = 0;
    return Array.from(this.counts, (n) => (total += n));
  }
}

interface Sample {
  readonly metricName: string;
  readonly labels: Labels;
  readonly value: number;
}

/**
 * A histogram whose series are cells, registered with prom-client as a metric of its own: the registry asks it
 * for its samples (`get`) when scraped, as it asks its own metrics, and formats them the same way.
 */
export class CellHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly cells: HistogramCell[] = [];

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  cell(labels: Labels = {}): HistogramCell {
    const cell = new HistogramCell(this.bounds, labels);
    this.cells.push(cell);
    return cell;
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const cell of this.cells) {
      const below = cell.cumulative();
      for (const [i, le] of this.bounds.entries()) values.push({ metricName: bucket, labels: { ...cell.labels, le: String(le) }, value: below[i]! });
      values.push({ metricName: bucket, labels: { ...cell.labels, le: '+Inf' }, value: cell.count });
      values.push({ metricName: `${this.name}_sum`, labels: cell.labels, value: cell.sum });
      values.push({ metricName: `${this.name}_count`, labels: cell.labels, value: cell.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
