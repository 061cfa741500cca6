/** Placeholder until this screen is built. */
export function WalletPage() {
  return <h1>WalletPage</h1>;
}
