/** A thin JSON HTTP client for black-box tests: raw status, headers and parsed envelope. */
export interface ApiResponse<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Envelope<T>;
}

export interface Envelope<T> {
  success: boolean;
  data: T;
  error: { code: string; message: string; field: string | null } | null;
  meta: null;
  request_id: string;
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async call<T = unknown>(
    method: string,
    path: string,
    init: { json?: unknown; body?: string | Uint8Array; headers?: Record<string, string>; auth?: string | null } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...init.headers };
    const auth = init.auth === undefined ? `Bearer ${this.apiKey}` : init.auth;
    if (auth !== null) headers.authorization = auth;
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Envelope<T> };
  }

  send(query: Record<string, string>, body: string | Uint8Array = 'hello', headers: Record<string, string> = {}) {
    return this.call('POST', `/send?${new URLSearchParams(query)}`, { body, headers });
  }

  create(json: unknown, headers: Record<string, string> = {}) {
    return this.call('POST', '/requests', { json, headers });
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after the deadline. */
export async function eventually<T>(check: () => Promise<T | undefined>, deadlineMs = 10_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met before the deadline');
    await new Promise((r) => setTimeout(r, 20));
  }
}
