export function RequestsPage({ query }: { query: URLSearchParams }) {
  return <h1>Requests {query.toString()}</h1>;
}
