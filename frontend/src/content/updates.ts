import type { UpdateItem } from './types';

/** Dated announcements for /updates, newest first. */
export const UPDATES: UpdateItem[] = [
  {
    id: 9,
    date: '2025-11-03',
    title: 'Roadmap for 2026: Mobile Apps and the Stable Release',
    content: `
<p>Our plans for the coming year are set:</p>
<ul>
  <li><strong>Q1 2026 — Mobile Apps:</strong> iOS and Android, with a Progressive Web App, native performance and push notifications.</li>
  <li><strong>Q2 2026 — Stable Release:</strong> the first non-beta version of the desktop client.</li>
  <li><strong>2026 — Production:</strong> the network moves from beta to production operation.</li>
</ul>
<p>Until then the desktop client for Windows, macOS and Linux remains in beta. Read the full <a href="/blog/community-update-road-to-2026">community update</a>.</p>
`,
  },
  {
    id: 8,
    date: '2025-09-02',
    title: 'Sign In with Google, GitHub or Microsoft',
    content: `
<p>You can now sign in to the <a href="/app/auth">web app</a> with your Google, GitHub or Microsoft account as well as with your e-mail and password. Social sign-in uses a single-use state and a PKCE challenge to protect the exchange.</p>
<p>After a social sign-in started from the desktop app, the web app confirms that you can log in to the desktop app with your e-mail.</p>
`,
  },
  {
    id: 7,
    date: '2025-08-12',
    title: 'Self-Service Account Deletion',
    content: `
<p>You can delete your account at any time at <a href="/account-deletion">/account-deletion</a> — no sign-in needed. Enter your e-mail, type the 6-digit code we send you (valid for 5 minutes) and confirm.</p>
<p>Deletion revokes every session and removes your e-mail, username, password hash, linked sign-in identities, conversations and notifications. Transaction records are kept in anonymised form for 7 years, as explained in the <a href="/privacy-policy">Privacy Policy</a>.</p>
`,
  },
  {
    id: 6,
    date: '2025-07-15',
    title: 'Token Packages in the Token Wallet',
    content: `
<p>The Purchase Tokens grid in the Token Wallet offers four packages:</p>
<table>
  <thead>
    <tr><th>Package</th><th>Tokens</th><th>Bonus</th><th>Price</th></tr>
  </thead>
  <tbody>
    <tr><td>Starter</td><td>1,000</td><td>—</td><td>$10</td></tr>
    <tr><td>Basic</td><td>5,000</td><td>500</td><td>$45</td></tr>
    <tr><td>Pro (Most Popular)</td><td>10,000</td><td>1,500</td><td>$85</td></tr>
    <tr><td>Enterprise</td><td>50,000</td><td>10,000</td><td>$400</td></tr>
  </tbody>
</table>
<p>Purchased tokens and their bonus are credited as soon as the payment completes. You can still earn tokens for free by sharing resources with the <a href="/downloads">desktop client</a>.</p>
`,
  },
  {
    id: 5,
    date: '2025-06-04',
    title: 'Web App Launch: AI Assistant, Token Wallet and Dashboard',
    content: `
<p>The Glob Network web app is open at <a href="/app/auth">/app</a>. Sign in to:</p>
<ul>
  <li>chat with the network's language models in the <strong>AI Assistant</strong> — Llama 3.3 70B Instruct, Llama 3 70B Instruct, Llama 3 8B Instruct and Llama 3.2 1B Instruct;</li>
  <li>follow your balance, earnings, spending and transactions in the <strong>Token Wallet</strong>;</li>
  <li>see your balance, connected peers and active tasks on the <strong>Dashboard</strong>.</li>
</ul>
<p>Resource sharing, the P2P network, model training and advanced analytics remain desktop-only features.</p>
`,
  },
  {
    id: 4,
    date: '2025-06-04',
    title: 'Beta Release 0.1.0-beta3 for Windows, macOS and Linux',
    content: `
<p>Version <strong>0.1.0-beta3</strong> of the desktop client is available on the <a href="/downloads">Downloads</a> page: a Windows installer (<code>.exe</code>), a macOS disk image (<code>.dmg</code>, Universal Binary for Intel and Apple Silicon) and Linux builds in <code>AppImage</code> and <code>.deb</code> formats.</p>
<p>Share CPU (10–80%), memory (20–70%) and GPU (0–90%) with the network and earn 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0) for every completed task. See the <a href="/blog/release-notes-0-1-0-beta3">release notes</a> for details and known limitations.</p>
`,
  },
  {
    id: 3,
    date: '2025-01-15',
    title: 'Platform Development Under Way',
    content: `
<p>Work has started on the platform itself: the desktop client that lets people share their GPU, CPU and memory, the web app for using the network's models, the GLOB token wallet and the API that connects them. Our target is a public beta in mid-2025.</p>
`,
  },
  {
    id: 2,
    date: '2024-11-15',
    title: 'Glob Network Joins a Startup Programme',
    content: `
<p>Glob Network has been accepted into a startup programme. The support will help turn our research on distributed inference into a product that anyone with a capable computer can join.</p>
`,
  },
  {
    id: 1,
    date: '2024-08-20',
    title: 'The Research Paper Behind Glob Network',
    content: `
<p>Glob Network begins with a research paper on splitting large language models into shards that run on connected consumer devices, working together peer to peer, and on rewarding the people who share their hardware. The ideas in this paper are the foundation of the platform.</p>
<p>Read how sharding works in practice in <a href="/blog/how-model-sharding-works">How Model Sharding Across Peers Works</a>.</p>
`,
  },
];
