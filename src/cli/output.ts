/** A failure the operator can act on, reported in one line without a stack trace; the CLI exits 1. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

/** Results go to stdout as JSON, so scripts can read them. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Words for the person at the terminal go to stderr, leaving stdout to the result. */
export function note(text: string): void {
  process.stderr.write(`ferry: ${text}\n`);
}
