/**
 * The API key the user signed in with. It lives in sessionStorage alone: gone with the tab, never sent by the
 * browser on its own (a cookie would be) and never kept across sessions (localStorage would be).
 */
const KEY = 'ferry.console.apiKey';

export function storedApiKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeApiKey(apiKey: string): void {
  sessionStorage.setItem(KEY, apiKey);
}

export function forgetApiKey(): void {
  sessionStorage.removeItem(KEY);
}
