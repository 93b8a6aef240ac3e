export function SendPage() {
  return <h1>SendPage</h1>;
}
