import type { AttemptRecord, HttpMethod, RequestSource, RequestStatus, StoredRequest } from '../domain/request.js';

/** A page position: the list is ordered by (createdAt desc, id desc). */
export interface ListPosition {
  readonly createdAt: number;
  readonly id: string;
}

export interface RequestListQuery {
  readonly projectId: string;
  readonly status?: RequestStatus;
  /** Exact request ID match. */
  readonly id?: string;
  /** Case-insensitive substring of the URL. */
  readonly urlContains?: string;
  readonly method?: HttpMethod;
  readonly source?: RequestSource;
  /** Inclusive lower bound of createdAt. */
  readonly from?: number;
  /** Exclusive upper bound of createdAt. */
  readonly to?: number;
  /** Terminal requests created before this are left out; active ones never are. */
  readonly terminalCutoff: number;
  /** Return only items strictly after this position in list order. */
  readonly after?: ListPosition;
  readonly limit: number;
}

/** Fields a conditional update may change. */
export type RequestPatch = Partial<
  Pick<
    StoredRequest,
    'status' | 'dueAt' | 'attemptCount' | 'updatedAt' | 'startedAt' | 'completedAt' | 'cancelledAt' | 'cancelRequestedAt'
  >
>;

/**
 * Durable storage of requests and their attempts. Every write resolves only once it is durable. Conditional
 * updates compare the stored version and fail with a typed `VersionConflict` instead of overwriting.
 */
export interface RequestStore {
  /** Stores new requests, all or none. */
  insertMany(requests: readonly StoredRequest[]): Promise<void>;
  /** The request, or null when it does not exist in this project. */
  get(projectId: string, id: string): Promise<StoredRequest | null>;
  /** Matching requests in list order, at most `limit`. */
  list(query: RequestListQuery): Promise<StoredRequest[]>;
  /** True when the project has terminal requests created before `cutoff`. */
  hasTerminalBefore(projectId: string, cutoff: number): Promise<boolean>;
  /** Applies `patch` when the stored version equals `expectedVersion`; returns the updated request. */
  update(projectId: string, id: string, expectedVersion: number, patch: RequestPatch): Promise<StoredRequest>;
  /** Completed attempts of a request, oldest first. */
  listAttempts(projectId: string, requestId: string): Promise<AttemptRecord[]>;
}

/** Thrown by conditional writes whose condition no longer holds. */
export class VersionConflict extends Error {
  override readonly name = 'VersionConflict';
}
