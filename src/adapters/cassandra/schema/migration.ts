/** One version of the schema: statements applied in order, each safe to run again (`IF NOT EXISTS`). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** CQL statements without a keyspace prefix; the runner applies them inside the deployment's keyspace. */
  readonly statements: readonly string[];
}
