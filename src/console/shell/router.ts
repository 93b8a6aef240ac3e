import { useEffect, useState } from 'preact/hooks';
import { hrefOf, parseRoute, type Route } from './routes.js';

export { hrefOf, parseRoute, type Route } from './routes.js';

export function navigate(route: Route): void {
  location.hash = hrefOf(route);
}

/** The current place, following the fragment as it changes (links, back and forward). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return route;
}
