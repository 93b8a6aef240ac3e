export interface Project {
  readonly id: string;
  readonly name: string;
  /** Requests the project may create per UTC calendar month. */
  readonly monthlyAllowance: number;
  /** Schedules the project may have at once. */
  readonly scheduleAllowance: number;
  /** Days terminal requests stay visible. */
  readonly retentionDays: number;
  readonly createdAt: number;
}

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly projectId: string;
  /** SHA-256 of the key's secret part; the secret itself is never stored. */
  readonly secretHash: Uint8Array;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}
