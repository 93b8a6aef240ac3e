import type { Budgets } from '../../../sdk/src/client/budgets.js';
import type { Ferry } from '../../../sdk/src/client/ferry.js';
import type { Route } from '../shell/routes.js';

/**
 * Queues and flow keys are the same thing to the API (one budget object, the same five calls on two paths), so
 * the console shows them with the same pages; this is all that tells the two apart.
 */
export interface BudgetKind {
  readonly kind: 'queue' | 'flow_key';
  /** One of them, in words: `queue`, `flow key`. */
  readonly one: string;
  /** The page's title: `Queues`, `Flow keys`. */
  readonly title: string;
  client(ferry: Ferry): Budgets;
  list(query: URLSearchParams): Route;
  item(name: string): Route;
}

export const QUEUES: BudgetKind = {
  kind: 'queue',
  one: 'queue',
  title: 'Queues',
  client: (ferry) => ferry.queues,
  list: (query) => ({ page: 'queues', query }),
  item: (name) => ({ page: 'queue', name }),
};

export const FLOW_KEYS: BudgetKind = {
  kind: 'flow_key',
  one: 'flow key',
  title: 'Flow keys',
  client: (ferry) => ferry.flowKeys,
  list: (query) => ({ page: 'flow-keys', query }),
  item: (name) => ({ page: 'flow-key', name }),
};

export function budgetKindOf(kind: 'queue' | 'flow_key'): BudgetKind {
  return kind === 'queue' ? QUEUES : FLOW_KEYS;
}
