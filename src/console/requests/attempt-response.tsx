import type { Attempt } from '../../../sdk/src/types.js';

type Response = NonNullable<Attempt['response']>;

/** How the body excerpt reads: text as is, base64 labelled as such, an absent body said in words. */
export function bodyLabel(r: Response): string {
  if (r.body === null) return 'Body not kept (the project keeps headers only)';
  if (r.body === '') return 'Empty body';
  const cut = r.body_truncated ? ', first 2 KiB' : '';
  return r.body_encoding === 'base64' ? `Body (not text: base64${cut})` : `Body${cut}`;
}

/** What the destination answered: the kept headers and the start of the body. */
export function AttemptResponse({ response }: { response: Response }) {
  const headers = Object.entries(response.headers);
  return (
    <details class="attempt-response">
      <summary>What the destination answered</summary>
      {headers.length > 0 ? (
        <dl class="response-headers">
          {headers.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <p class="muted">{bodyLabel(response)}</p>
      {response.body !== null && response.body !== '' ? <pre class="response-body">{response.body}</pre> : null}
    </details>
  );
}
