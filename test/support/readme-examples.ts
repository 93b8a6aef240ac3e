import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface ShellExample {
  /** The `##` or `###` heading the block sits under. */
  readonly section: string;
  readonly code: string;
}

/** Every ```sh block of the README, with the heading it belongs to. */
export function readmeShellExamples(path = join(ROOT, 'README.md')): ShellExample[] {
  const examples: ShellExample[] = [];
  let section = '';
  let block: string[] | null = null;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (block !== null) {
      if (line.startsWith('```')) {
        examples.push({ section, code: block.join('\n') });
        block = null;
      } else {
        block.push(line);
      }
    } else if (/^#{2,3} /.test(line)) {
      section = line.replace(/^#+ /, '');
    } else if (line.startsWith('```sh')) {
      block = [];
    }
  }
  return examples;
}

/**
 * Shell functions the examples run with (`readme-examples.sh`): `curl` fails the script on an HTTP status of 400
 * or more and remembers the IDs and cursor it sees for the placeholders of later lines; `npm` keeps the output of
 * the last `ferry` command, for the key an example tells the reader to copy.
 */
export const EXAMPLE_PRELUDE = readFileSync(join(import.meta.dirname, 'readme-examples.sh'), 'utf8');

/** Replaces the README's placeholders with the shell variables the prelude fills, and its ports with real ones. */
export function runnableExample(code: string, ports: { http: number; grpc: number }): string {
  return code
    .replaceAll('export KEY=fry_…', 'export KEY=$(jq -r .api_key "$EXAMPLE_CLI_OUT")')
    .replaceAll('req_…', '$REQ_ID')
    .replaceAll('sch_…', '$SCH_ID')
    .replaceAll('<next_cursor>', '$NEXT_CURSOR')
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.http}`)
    .replaceAll('127.0.0.1:8081', `127.0.0.1:${ports.grpc}`);
}
