/** Placeholder until this screen is built. */
export function DashboardPage() {
  return <h1>DashboardPage</h1>;
}
