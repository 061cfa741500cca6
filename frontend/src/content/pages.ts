import type { PageKey, PageMeta } from './types';
import { BLOG_POSTS } from './blog';
import { UPDATES } from './updates';

/** Site-wide constants. */
export const SITE = {
  name: 'Glob Network',
  url: 'https://globnetwork.io',
  supportEmail: 'support@globnetwork.io',
  discord: 'https://discord.gg/globnetwork',
  github: 'https://github.com/globnetwork',
  releasesHost: 'https://releases.globnetwork.io',
  ogImage: '/media/og-image.png',
  ogImageWidth: 1200,
  ogImageHeight: 630,
} as const;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const JS_NOTE = '<p><em>This page works best with JavaScript turned on. The essential information is below.</em></p>';

const SITE_LINKS = `
<p><a href="/">Home</a> · <a href="/documentation">Documentation</a> · <a href="/downloads">Downloads</a> · <a href="/about">About</a> · <a href="/blog">Blog</a> · <a href="/contact">Contact</a> · <a href="/updates">Updates</a></p>
<p><a href="/privacy-policy">Privacy Policy</a> · <a href="/terms-of-service">Terms of Service</a> · <a href="/license">License</a> · <a href="/account-deletion">Account Deletion</a></p>
<p>Support: <a href="mailto:support@globnetwork.io">support@globnetwork.io</a> · Community: <a href="https://discord.gg/globnetwork">Discord</a> · Code: <a href="https://github.com/globnetwork">GitHub</a></p>`;

const BLOG_LIST = `<ul>
${BLOG_POSTS.map((p) => `  <li><a href="/blog/${p.slug}">${escapeHtml(p.title)}</a> (${p.date}) — ${escapeHtml(p.excerpt)}</li>`).join('\n')}
</ul>`;

const UPDATE_LIST = `<ul>
${UPDATES.map((u) => `  <li><strong>${u.date}</strong> — ${escapeHtml(u.title)}</li>`).join('\n')}
</ul>`;

function legalNoscript(title: string, summary: string): string {
  return `
<h2>${title}</h2>
${JS_NOTE}
<p>Effective January 1, 2025.</p>
${summary}
<p>For the full text, turn on JavaScript or write to <a href="mailto:support@globnetwork.io">support@globnetwork.io</a>. Glob Network is operated by a UK-based individual; postal address: Glob Network, London, United Kingdom.</p>
${SITE_LINKS}`;
}

/** Metadata and no-script fallback of every page. */
export const PAGES: Record<PageKey, PageMeta> = {
  home: {
    key: 'home',
    path: '/',
    title: 'Glob Network — Distributed AI Processing',
    description:
      'Share your GPU, CPU and memory with the Glob Network desktop client and earn GLB tokens, or use large language models running on the network in the web app.',
    noscript: `
<h2>Glob Network — distributed AI processing</h2>
${JS_NOTE}
<p>Glob Network splits large language models across connected devices. Share your GPU, CPU and memory through the desktop client for Windows, macOS and Linux and earn GLOB tokens (GLB); spend tokens to use the network's language models in the web app.</p>
<ul>
  <li><strong>Distributed Processing:</strong> a 140 GB model runs as 4 shards of about 35 GB on peers working together.</li>
  <li><strong>Token Economy:</strong> each completed task earns 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0), typically 25–150 GLB.</li>
  <li><strong>Secure &amp; Private:</strong> verified accounts, short-lived access tokens, and you decide exactly what you share.</li>
  <li><strong>Scalable Solution:</strong> every new device adds capacity to the network.</li>
</ul>
<p><a href="/downloads">Download Client</a> · <a href="/app/auth">Try Web App</a> · <a href="/documentation">Read Documentation</a></p>
${SITE_LINKS}`,
  },
  about: {
    key: 'about',
    path: '/about',
    title: 'About — Glob Network',
    description:
      'Why Glob Network exists: our vision and mission, the problem of AI models too large for ordinary computers, our founder and the road from research to 2026.',
    noscript: `
<h2>About Glob Network</h2>
${JS_NOTE}
<p>Glob Network makes large language models accessible by running them across everyday computers, and rewards the people who share their GPU, CPU and memory with GLOB tokens.</p>
<h3>Our journey</h3>
<ul>
  <li><strong>Aug 2024</strong> — Research paper</li>
  <li><strong>Nov 2024</strong> — Startup programme</li>
  <li><strong>Q1 2025</strong> — Platform development</li>
  <li><strong>June 2025</strong> — Beta (current)</li>
  <li><strong>2026</strong> — Production</li>
</ul>
<h3>Team</h3>
<p>Founder — Glob Network, London, United Kingdom.</p>
${SITE_LINKS}`,
  },
  blog: {
    key: 'blog',
    path: '/blog',
    title: 'Blog — Glob Network',
    description:
      'News, tutorials, release notes and technical deep dives from Glob Network: distributed AI, model sharding, GLB token rewards, security and the roadmap.',
    noscript: `
<h2>Glob Network Blog</h2>
${JS_NOTE}
${BLOG_LIST}
${SITE_LINKS}`,
  },
  'blog-post': {
    key: 'blog-post',
    path: '/blog/:slug',
    title: 'Blog — Glob Network',
    description:
      'Read this article on the Glob Network blog: announcements, tutorials, release notes and technical explanations of distributed AI and GLB token rewards.',
    noscript: `
<h2>Glob Network Blog</h2>
${JS_NOTE}
<p>Turn on JavaScript to read this article, or choose a post below.</p>
${BLOG_LIST}
${SITE_LINKS}`,
  },
  contact: {
    key: 'contact',
    path: '/contact',
    title: 'Contact — Glob Network',
    description:
      'Contact Glob Network for support, feedback or partnerships. E-mail support@globnetwork.io; we reply within 24–48 hours on business days. Join us on Discord.',
    noscript: `
<h2>Contact Glob Network</h2>
${JS_NOTE}
<p>The contact form needs JavaScript. You can reach us directly:</p>
<ul>
  <li>E-mail: <a href="mailto:support@globnetwork.io">support@globnetwork.io</a> — we reply within 24–48 hours on business days.</li>
  <li>Community: <a href="https://discord.gg/globnetwork">discord.gg/globnetwork</a></li>
  <li>Source code: <a href="https://github.com/globnetwork">github.com/globnetwork</a></li>
  <li>Post: Glob Network, London, United Kingdom</li>
</ul>
<p>Please mention the topic: General Inquiry, Technical Support, Feedback, Partnership Opportunity or Other. Many questions are answered in the <a href="/documentation#faq">FAQ</a>. See how we handle your data in the <a href="/privacy-policy">Privacy Policy</a>.</p>
${SITE_LINKS}`,
  },
  documentation: {
    key: 'documentation',
    path: '/documentation',
    title: 'Documentation — Glob Network',
    description:
      'Glob Network documentation: getting started, distributed AI, resource sharing, GLB token rewards, security, system requirements, FAQ and the HTTP API.',
    noscript: `
<h2>Glob Network Documentation</h2>
${JS_NOTE}
<ul>
  <li><a href="/documentation#getting-started">Getting Started</a></li>
  <li><a href="/documentation#distributed-ai">Distributed AI Processing</a></li>
  <li><a href="/documentation#resource-sharing">Resource Sharing</a> — CPU 10–80% (default 50%), memory 20–70% (default 40%), GPU 0–90% (default 60%); sharing stops on battery below 20%.</li>
  <li><a href="/documentation#token-economy">GLB Token Economy</a> — 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0), typically 25–150 GLB per task.</li>
  <li><a href="/documentation#how-it-works">How It Works</a></li>
  <li><a href="/documentation#security-privacy">Security &amp; Privacy</a></li>
  <li><a href="/documentation#system-requirements">System Requirements</a> — minimum 8 GB RAM and 5+ Mbps; recommended 16 GB+ RAM and 8 cores; optimal 32 GB+ RAM and 50+ Mbps.</li>
  <li><a href="/documentation#faq">FAQ</a></li>
  <li><a href="/documentation#api">API</a> — interactive reference at <a href="/api/docs">/api/docs</a>.</li>
</ul>
${SITE_LINKS}`,
  },
  downloads: {
    key: 'downloads',
    path: '/downloads',
    title: 'Downloads — Glob Network',
    description: 'Download the Glob Network desktop client for Windows, macOS or Linux. Share GPU, CPU and memory and earn GLB tokens. Mobile soon.',
    noscript: `
<h2>Download Glob Network</h2>
${JS_NOTE}
<p>This page lists the latest release's files with their sizes and SHA-256 checksums once JavaScript runs (the release is also at <a href="/api/releases/latest">/api/releases/latest</a>).</p>
<ul>
  <li><strong>Windows</strong> 10/11 64-bit — <code>.msi</code> installer (for your user, no administrator needed) or <code>.zip</code>; GPU acceleration, background processing.</li>
  <li><strong>macOS</strong> — the app in a <code>.zip</code>, for Apple Silicon (M1/M2/M3) and for Intel.</li>
  <li><strong>Linux</strong> — <code>.deb</code> (Ubuntu/Debian) and <code>.tar.gz</code>; GPU support.</li>
  <li><strong>Mobile</strong> — iOS and Android: coming soon (Q1 2026).</li>
</ul>
<p>Roadmap: Beta Release (now), Mobile Apps (Q1 2026), Stable Release (Q2 2026). Prefer the browser? <a href="/app/auth">Try the web app</a>. Check the <a href="/documentation#system-requirements">system requirements</a>.</p>
${SITE_LINKS}`,
  },
  privacy: {
    key: 'privacy',
    path: '/privacy-policy',
    title: 'Privacy Policy — Glob Network',
    description:
      'How Glob Network collects, uses, shares and protects personal data under UK GDPR, how long we keep it, and how to exercise your rights or delete your account.',
    noscript: legalNoscript(
      'Privacy Policy',
      `<ul>
  <li>We process account, usage, wallet and conversation data to run the Service, under the UK GDPR and the Data Protection Act 2018.</li>
  <li>Transaction records are kept for 7 years; usage logs for 2 years.</li>
  <li>We do not sell personal data. Card payments are handled by our payment processor.</li>
  <li>You can access, correct, export or erase your data, and complain to the ICO (<a href="https://ico.org.uk">ico.org.uk</a>).</li>
  <li>Delete your account at <a href="/account-deletion">/account-deletion</a>.</li>
</ul>`,
    ),
  },
  terms: {
    key: 'terms',
    path: '/terms-of-service',
    title: 'Terms of Service — Glob Network',
    description:
      'The terms for using Glob Network: eligibility (18+, one account per person), resource sharing, GLOB tokens and payouts, token packages and acceptable use.',
    noscript: legalNoscript(
      'Terms of Service',
      `<ul>
  <li>You must be 18 or older; one account per person; a two-factor verification code is required at sign-up.</li>
  <li>Rewards: 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0) per task; payouts can take up to 24 hours.</li>
  <li>GLOB tokens are platform credits, not money or an investment.</li>
  <li>Our uptime target is 99.9%; the desktop client is in beta.</li>
  <li>These Terms are governed by the law of England and Wales.</li>
</ul>`,
    ),
  },
  license: {
    key: 'license',
    path: '/license',
    title: 'License — Glob Network',
    description:
      'The licence for the Glob Network desktop client, web app, API and website content, including open-source components and the licences of the Llama AI models.',
    noscript: legalNoscript(
      'License',
      `<ul>
  <li>The desktop client is licensed to you for personal use on devices you own or are authorised to use; it is not sold.</li>
  <li>Do not modify, reverse-engineer (except as the law allows), redistribute or tamper with it.</li>
  <li>Open-source components keep their own licences; code in our <a href="https://github.com/globnetwork">GitHub organisation</a> is governed by each repository's licence file.</li>
  <li>The Llama models are subject to Meta's Llama community licence agreements.</li>
</ul>`,
    ),
  },
  updates: {
    key: 'updates',
    path: '/updates',
    title: 'Updates — Glob Network',
    description:
      'Announcements and release updates from Glob Network, newest first: the 0.1.0-beta3 beta, the web app launch, token packages and our roadmap for 2026.',
    noscript: `
<h2>Glob Network Updates</h2>
${JS_NOTE}
${UPDATE_LIST}
<p><a href="/">Back to Home</a></p>
${SITE_LINKS}`,
  },
  'account-deletion': {
    key: 'account-deletion',
    path: '/account-deletion',
    title: 'Delete Your Account — Glob Network',
    description:
      'Delete your Glob Network account without signing in: confirm your e-mail with a 6-digit code, then confirm deletion. Learn what is removed and what is kept.',
    noscript: `
<h2>Delete Your Account</h2>
${JS_NOTE}
<p>The deletion form needs JavaScript. With JavaScript on, the steps are:</p>
<ol>
  <li>Enter the e-mail address of your account.</li>
  <li>Enter the 6-digit code we e-mail you (valid for 5 minutes).</li>
  <li>Confirm the deletion.</li>
</ol>
<p>Deletion revokes every session and removes your e-mail, username, password hash, linked sign-in identities, conversations and notifications. Transaction records are kept anonymised for 7 years. Any remaining GLOB balance is lost.</p>
<p>Without JavaScript, send a deletion request from your account's e-mail address to <a href="mailto:support@globnetwork.io">support@globnetwork.io</a>. See the <a href="/privacy-policy">Privacy Policy</a>.</p>
${SITE_LINKS}`,
  },
  '404': {
    key: '404',
    path: '*',
    title: 'Page Not Found — Glob Network',
    description:
      'The page you are looking for does not exist or has moved. Try the Glob Network home page, downloads, documentation, about page or contact page instead.',
    noscript: `
<h2>Page Not Found</h2>
<p>The page you are looking for does not exist or has been moved.</p>
<p><a href="/">Go Home</a></p>
<p>Popular pages: <a href="/downloads">Downloads</a> · <a href="/documentation">Documentation</a> · <a href="/about">About</a> · <a href="/contact">Contact</a></p>`,
  },
  news: {
    key: 'news',
    path: '/news',
    title: 'AI News — Glob Network',
    description:
      'AI News from Glob Network: our commentary on open models, shared compute, privacy in inference, streaming APIs and fair rewards for the people who share.',
    noscript: `
<h2>AI News</h2>
${JS_NOTE}
<p>Our commentary on what is happening in AI, with links to the Glob Network blog and documentation:</p>
<ul>
  <li><a href="/blog/how-model-sharding-works">How model sharding across peers works</a></li>
  <li><a href="/blog/security-privacy-distributed-inference">Security and privacy in distributed inference</a></li>
  <li><a href="/blog/how-glb-rewards-are-computed">How GLB rewards are computed</a></li>
  <li><a href="/documentation#api">Streaming AI answers with the Glob Network API</a></li>
</ul>
${SITE_LINKS}`,
  },
};
