import { expect } from 'vitest';
import type { Api, ApiResponse } from './api-client.js';

/** A queue or flow key as the API answers it. */
export interface BudgetObject {
  name: string;
  rate: { limit: number; period: string; burst: number } | null;
  concurrency: number | null;
  adaptive: boolean;
  paused: boolean;
  in_flight: number;
  started_in_period: number | null;
  waiting: { rate: number; concurrency: number; paused: number };
  admitted_rate: number | null;
  updated_at: string | null;
}

export interface BudgetList {
  items: BudgetObject[];
  next_cursor: string | null;
}

export type BudgetPath = 'queues' | 'flow-keys';

/** How a budget never configured reads: no limits, not paused, idle. */
export function unconfigured(name: string): BudgetObject {
  return {
    name,
    rate: null,
    concurrency: null,
    adaptive: true,
    paused: false,
    in_flight: 0,
    started_in_period: null,
    waiting: { rate: 0, concurrency: 0, paused: 0 },
    admitted_rate: null,
    updated_at: null,
  };
}

/** The queue and flow-key paths of one project, over real HTTP. */
export class Budgets {
  constructor(
    readonly api: Api,
    readonly path: BudgetPath,
  ) {}

  get(name: string): Promise<ApiResponse<BudgetObject>> {
    return this.api.call<BudgetObject>('GET', `/${this.path}/${encodeURIComponent(name)}`);
  }

  put(name: string, json: unknown): Promise<ApiResponse<BudgetObject>> {
    return this.api.call<BudgetObject>('PUT', `/${this.path}/${encodeURIComponent(name)}`, { json });
  }

  pause(name: string): Promise<ApiResponse<BudgetObject>> {
    return this.api.call<BudgetObject>('POST', `/${this.path}/${encodeURIComponent(name)}/pause`);
  }

  resume(name: string): Promise<ApiResponse<BudgetObject>> {
    return this.api.call<BudgetObject>('POST', `/${this.path}/${encodeURIComponent(name)}/resume`);
  }

  list(query = ''): Promise<ApiResponse<BudgetList>> {
    return this.api.call<BudgetList>('GET', `/${this.path}${query ? `?${query}` : ''}`);
  }

  /** Asserts a 200 and answers its data. */
  async ok(res: Promise<ApiResponse<BudgetObject>>): Promise<BudgetObject> {
    const answer = await res;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data;
  }

  /** Every name of the list, walking every page. */
  async names(pageSize = 100): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=${pageSize}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const res = await this.list(query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      names.push(...res.body.data.items.map((b) => b.name));
      cursor = res.body.data.next_cursor;
    } while (cursor !== null);
    return names;
  }
}
