export function SchedulesPage({ query }: { query: URLSearchParams }) {
  return <h1>Schedules {query.toString()}</h1>;
}
