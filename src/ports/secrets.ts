/** Server-wide secrets (such as the cursor signing key), created once and shared by every process. */
export interface SecretStore {
  /** The secret stored under `name`; the first caller's `candidate` wins when none exists yet. */
  getOrCreate(name: string, candidate: Uint8Array): Promise<Uint8Array>;
}
