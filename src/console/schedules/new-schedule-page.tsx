export function NewSchedulePage() {
  return <h1>NewSchedulePage</h1>;
}
