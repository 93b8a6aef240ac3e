import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { fingerprint } from '../domain/fingerprint.js';
import { NO_LIMITS, stateUnder, type BudgetConfig, type BudgetKind, type BudgetLimits, type BudgetState } from '../domain/flow/budgets.js';
import type { Project } from '../domain/project.js';
import { validateBudgetName, validatePageSize } from '../domain/validation/index.js';
import type { BudgetStates, BudgetStore } from '../ports/budgets.js';

/** A queue or flow key as the API answers it: its configuration joined with how it stands now. */
export interface BudgetView {
  readonly kind: BudgetKind;
  readonly name: string;
  readonly limits: BudgetLimits;
  readonly paused: boolean;
  /** When its limits or pause last changed; null for a budget never stored. */
  readonly updatedAt: number | null;
  readonly state: BudgetState;
}

export interface BudgetPageView {
  readonly items: BudgetView[];
  readonly nextCursor: string | null;
}

/** Each kind's list cursors are bound to their own tag, so a cursor of one list is refused by the others. */
const LIST_TAG: Readonly<Record<BudgetKind, string>> = {
  queue: fingerprint('budget-list', 'queue'),
  flow_key: fingerprint('budget-list', 'flow_key'),
};

/**
 * The read side of flow control, scoped to the caller's project: every valid name reads, stored or not (a budget
 * never configured has no limits and is not paused), with its live state from the delivering processes.
 */
export class BudgetQueries {
  constructor(
    private readonly store: BudgetStore,
    private readonly states: BudgetStates,
    private readonly cursorSecret: Uint8Array,
  ) {}

  async get(project: Project, kind: BudgetKind, name: string): Promise<BudgetView> {
    const valid = validateBudgetName(kind, name);
    const config = await this.store.get(project.id, kind, valid);
    return this.view(project.id, kind, valid, config);
  }

  /** The project's stored budgets of `kind` in name order (queues used or configured, keys configured or paused). */
  async list(project: Project, kind: BudgetKind, input: { limit?: number; cursor?: string }): Promise<BudgetPageView> {
    const limit = validatePageSize(input.limit);
    const after = input.cursor === undefined ? null : decodeCursor(input.cursor, LIST_TAG[kind], this.cursorSecret).id;
    const page = await this.store.list(project.id, kind, after, limit);
    const items = await Promise.all(page.budgets.map((b) => this.view(project.id, kind, b.name, b)));
    // Names order the list, so a name is the whole position; the cursor's time is unused.
    const nextCursor = page.nextAfter === null ? null : encodeCursor({ createdAt: 0, id: page.nextAfter }, LIST_TAG[kind], this.cursorSecret);
    return { items, nextCursor };
  }

  /** The budget as stored (or as one never stored reads), with its live state. */
  async view(projectId: string, kind: BudgetKind, name: string, config: BudgetConfig | null): Promise<BudgetView> {
    const live = await this.states.stateOf(projectId, kind, name);
    if (config === null) return { kind, name, limits: NO_LIMITS, paused: false, updatedAt: null, state: stateUnder(NO_LIMITS, live) };
    const { rate, concurrency, adaptive } = config;
    const limits = { rate, concurrency, adaptive };
    return { kind, name, limits, paused: config.paused, updatedAt: config.updatedAt, state: stateUnder(limits, live) };
  }
}
