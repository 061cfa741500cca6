/** Placeholder until this screen is built. */
export function AssistantPage() {
  return <h1>AssistantPage</h1>;
}
