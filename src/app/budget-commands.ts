import type { Clock } from '../domain/clock.js';
import type { BudgetConfig, BudgetKind } from '../domain/flow/budgets.js';
import type { Project } from '../domain/project.js';
import { validateBudgetLimits, validateBudgetName, type BudgetLimitsInput } from '../domain/validation/index.js';
import type { BudgetStore } from '../ports/budgets.js';
import type { BudgetQueries, BudgetView } from './budget-queries.js';

/**
 * The flow-control changes of the API: a budget's whole configuration, its pause and its resume. Each answers the
 * budget as stored, with its live state. Input is validated whole before anything is written, so a refused call
 * stores nothing.
 */
export class BudgetCommands {
  constructor(
    private readonly store: BudgetStore,
    private readonly queries: BudgetQueries,
    private readonly clock: Clock,
    /** Told after every change is stored, so delivery in this process applies it at once. */
    private readonly onChanged: (config: BudgetConfig) => void = () => undefined,
  ) {}

  /** Replaces the limits (absent: no such limit), keeping the pause. */
  async setLimits(project: Project, kind: BudgetKind, name: string, input: BudgetLimitsInput): Promise<BudgetView> {
    const valid = validateBudgetName(kind, name);
    const limits = validateBudgetLimits(input);
    return this.changed(project, await this.store.putLimits(project.id, kind, valid, limits, this.clock.now()));
  }

  /** Pausing a paused budget is fine: it stays paused. A budget never configured can be paused all the same. */
  pause(project: Project, kind: BudgetKind, name: string): Promise<BudgetView> {
    return this.setPaused(project, kind, name, true);
  }

  resume(project: Project, kind: BudgetKind, name: string): Promise<BudgetView> {
    return this.setPaused(project, kind, name, false);
  }

  private async setPaused(project: Project, kind: BudgetKind, name: string, paused: boolean): Promise<BudgetView> {
    const valid = validateBudgetName(kind, name);
    return this.changed(project, await this.store.setPaused(project.id, kind, valid, paused, this.clock.now()));
  }

  private changed(project: Project, config: BudgetConfig): Promise<BudgetView> {
    this.onChanged(config);
    return this.queries.view(project.id, config.kind, config.name, config);
  }
}
