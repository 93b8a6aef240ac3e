import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleApi } from './ferry-api.js';

export interface ConsoleSession {
  readonly api: ConsoleApi;
  /** Called when the API refuses the key mid-session (revoked): the console signs out and says why. */
  keyRefused(): void;
}

export const SessionContext = createContext<ConsoleSession | null>(null);

/** The signed-in session; every page below the sign-in has one. */
export function useSession(): ConsoleSession {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in console');
  return session;
}
