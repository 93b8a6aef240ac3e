/** Monthly request usage per project, reserved with conditional writes so concurrent calls never overspend. */
export interface UsageStore {
  /** Adds `count` to the period's usage when the result stays within `limit`; false (and no change) otherwise. */
  reserve(projectId: string, period: string, count: number, limit: number): Promise<boolean>;
  /** Gives back a reservation that did not lead to accepted requests. */
  release(projectId: string, period: string, count: number): Promise<void>;
  /** Requests counted in the period so far. */
  used(projectId: string, period: string): Promise<number>;
}
