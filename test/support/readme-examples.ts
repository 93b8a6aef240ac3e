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
  return readmeExamples(path, 'sh');
}

/** Every code block of a README in one language (```sh, ```ts), with the heading it belongs to. */
export function readmeExamples(path: string, language: string): ShellExample[] {
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
    } else if (line === `\`\`\`${language}`) {
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
    .replaceAll('bulk_…', '$BULK_ID')
    .replaceAll('<next_cursor>', '$NEXT_CURSOR')
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.http}`)
    .replaceAll('127.0.0.1:8081', `127.0.0.1:${ports.grpc}`);
}

/**
 * A TypeScript block of the SDK README as a program that runs against a test server. The documentation's hosts and
 * placeholders become environment variables: FERRY_BASE_URL (the JSON API), FERRY_GRPC_URL and FERRY_GRPC_TARGET
 * (the gRPC port as a URL and as host:port, cleartext), REQ_ID (a request to act on), PORT (for a receiver) and
 * DELIVERY (a captured delivery, `{ headers, body }` with the body in base64, for a Fetch-style handler to answer).
 * A block that continues the quick start gets the `ferry` it uses.
 */
export function runnableSdkExample(code: string): string {
  let program = code
    .replaceAll("'https://ferry.example.com:8081'", 'process.env.FERRY_GRPC_URL!')
    .replaceAll("'ferry.example.com:8081'", 'process.env.FERRY_GRPC_TARGET!')
    .replaceAll('grpc.credentials.createSsl()', 'grpc.credentials.createInsecure()')
    .replaceAll("'https://ferry.example.com'", 'process.env.FERRY_BASE_URL!')
    .replaceAll("'req_…'", 'process.env.REQ_ID!')
    .replaceAll('.listen(3000)', '.listen(Number(process.env.PORT))');
  if (/\bferry\./.test(program) && !/\bconst ferry\b/.test(program)) {
    program = [
      "import { Ferry as QuickStartFerry } from '@ferry/sdk';",
      'const ferry = new QuickStartFerry({ baseUrl: process.env.FERRY_BASE_URL!, apiKey: process.env.FERRY_API_KEY! });',
      program,
    ].join('\n');
  }
  if (/^export async function POST\(request: Request\)/m.test(program)) {
    // The handler answers the delivery as captured, then the same with another body.
    program += [
      '',
      'const delivery = JSON.parse(process.env.DELIVERY!) as { headers: Record<string, string>; body: string };',
      `for (const body of [Buffer.from(delivery.body, 'base64'), Buffer.from('{"forged":true}')]) {`,
      "  const answer = await POST(new Request('https://receiver.example/hook', { method: 'POST', headers: delivery.headers, body }));",
      '  console.log(`answered ${answer.status}`);',
      '}',
    ].join('\n');
  }
  return `${program}\nexport {};\n`;
}
