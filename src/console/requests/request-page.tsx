export function RequestPage({ id }: { id: string }) {
  return <h1>Request {id}</h1>;
}
