/** Placeholder until this screen is built. */
export function OAuthCallbackPage() {
  return <h1>OAuthCallbackPage</h1>;
}
