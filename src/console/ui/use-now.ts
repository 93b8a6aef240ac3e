import { useEffect, useState } from 'preact/hooks';

/**
 * The current time, renewed every `everyMs`: a page whose data has stopped changing (a request that ended)
 * still re-renders, so that its relative times ("2 min ago", "in 5 s") stay true.
 */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
