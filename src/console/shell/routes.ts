/**
 * The console's places, kept in the URL's fragment so that every page can be bookmarked, reloaded and shared
 * without the server knowing the console's routes: `#/` (the overview), `#/requests?status=failed`, `#/requests/<id>`, `#/send`,
 * `#/schedules`, `#/schedules/new`, `#/schedules/<id>`, `#/queues`, `#/queues/<name>`, `#/flow-keys`,
 * `#/flow-keys/<key>`, `#/failures?queue=billing`.
 */
export type Route =
  | { readonly page: 'overview' }
  | { readonly page: 'requests'; readonly query: URLSearchParams }
  | { readonly page: 'failures'; readonly query: URLSearchParams }
  | { readonly page: 'request'; readonly id: string }
  | { readonly page: 'send' }
  | { readonly page: 'schedules'; readonly query: URLSearchParams }
  | { readonly page: 'new-schedule' }
  | { readonly page: 'schedule'; readonly id: string }
  | { readonly page: 'queues'; readonly query: URLSearchParams }
  | { readonly page: 'queue'; readonly name: string }
  | { readonly page: 'flow-keys'; readonly query: URLSearchParams }
  | { readonly page: 'flow-key'; readonly name: string };

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path.split('/').filter(Boolean).map(decodedPart);
  const query = new URLSearchParams(search);
  if (parts.length === 0) return { page: 'overview' };
  if (parts[0] === 'requests' && parts[1] !== undefined) return { page: 'request', id: parts[1] };
  if (parts[0] === 'failures') return { page: 'failures', query };
  if (parts[0] === 'send') return { page: 'send' };
  if (parts[0] === 'schedules' && parts[1] === 'new') return { page: 'new-schedule' };
  if (parts[0] === 'schedules' && parts[1] !== undefined) return { page: 'schedule', id: parts[1] };
  if (parts[0] === 'schedules') return { page: 'schedules', query };
  if (parts[0] === 'queues' && parts[1] !== undefined) return { page: 'queue', name: parts[1] };
  if (parts[0] === 'queues') return { page: 'queues', query };
  if (parts[0] === 'flow-keys' && parts[1] !== undefined) return { page: 'flow-key', name: parts[1] };
  if (parts[0] === 'flow-keys') return { page: 'flow-keys', query };
  return { page: 'requests', query };
}

/** A path segment decoded; a hand-edited address with a stray `%` keeps the segment as written instead of failing. */
function decodedPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The fragment (with its `#`) that leads to a place; query entries with empty values are left out. */
export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'request':
      return `#/requests/${encodeURIComponent(route.id)}`;
    case 'schedule':
      return `#/schedules/${encodeURIComponent(route.id)}`;
    case 'queue':
      return `#/queues/${nameSegment(route.name)}`;
    case 'flow-key':
      return `#/flow-keys/${nameSegment(route.name)}`;
    case 'overview':
      return '#/';
    case 'send':
      return '#/send';
    case 'new-schedule':
      return '#/schedules/new';
    case 'requests':
    case 'failures':
    case 'schedules':
    case 'queues':
    case 'flow-keys': {
      const query = new URLSearchParams([...route.query].filter(([, v]) => v !== ''));
      const search = query.toString();
      return `#/${route.page}${search === '' ? '' : `?${search}`}`;
    }
  }
}

/** A queue or flow key name as a path segment; colons, common in keys (`vendor:acme`), stay readable. */
function nameSegment(name: string): string {
  return encodeURIComponent(name).replace(/%3A/g, ':');
}
