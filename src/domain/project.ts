export interface Project {
  readonly id: string;
  readonly name: string;
  /** Requests the project may create per UTC calendar month. */
  readonly monthlyAllowance: number;
  /** Schedules the project may have at once. */
  readonly scheduleAllowance: number;
  /** Days terminal requests stay visible. */
  readonly retentionDays: number;
  /**
   * Whether attempts keep the first 2 KiB of response bodies (`src/domain/delivery/response.ts`); headers are kept
   * either way. Off for destinations whose answers hold what should not be stored.
   */
  readonly captureResponseBodies: boolean;
  readonly createdAt: number;
}

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly projectId: string;
  /** SHA-256 of the key's secret part; the secret itself is never stored. */
  readonly secretHash: Uint8Array;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  /**
   * When the key last authenticated a call, to within a minute (uses are written at most once a minute per key
   * and process); null when never used.
   */
  readonly lastUsedAt: number | null;
}

/** The settings of a project an operator may change; absent fields stay as they are. */
export interface ProjectChanges {
  readonly name?: string;
  readonly monthlyAllowance?: number;
  readonly scheduleAllowance?: number;
  readonly retentionDays?: number;
  readonly captureResponseBodies?: boolean;
}

/**
 * A key that signs deliveries. Several are active during a rotation, so receivers can move to the new one while
 * the old one still verifies.
 */
export interface SigningSecret {
  readonly projectId: string;
  readonly secret: Uint8Array;
  readonly createdAt: number;
  /** When the secret stops signing; null while it is the current one. */
  readonly retiresAt: number | null;
}
