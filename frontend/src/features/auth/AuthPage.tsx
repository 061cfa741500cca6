/** Placeholder until this screen is built. */
export function AuthPage() {
  return <h1>AuthPage</h1>;
}
