export function SchedulePage({ id }: { id: string }) {
  return <h1>Schedule {id}</h1>;
}
