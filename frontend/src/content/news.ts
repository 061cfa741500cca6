import type { NewsItem } from './types';

/** AI News (/news): industry topics with Glob Network's own commentary, newest first. All links are internal. */
export const NEWS_ITEMS: NewsItem[] = [
  {
    id: 6,
    date: '2025-10-21',
    title: 'Open-Weight Models Keep Growing — and So Does the Case for Sharding',
    summary:
      'Capable open-weight language models are now commonly released at around 70 billion parameters, which takes about 140 GB at 16-bit precision — beyond any single consumer machine. Our view: splitting such models into shards of about 35 GB that run across peers is a practical way to put them on everyday hardware.',
    source: 'Glob Network Research',
    url: '/blog/how-model-sharding-works',
    tag: 'Models',
  },
  {
    id: 5,
    date: '2025-09-30',
    title: 'Small Models, Fast Answers: Choosing Between 1B and 70B',
    summary:
      'Model makers now ship compact models alongside their flagships, such as Llama 3.2 1B next to 70B models. On Glob Network both kinds are offered: the 70B models for quality in coding and analysis, the 1B and 8B models for quick, cheaper answers. We explain how to pick.',
    source: 'Glob Network Blog',
    url: '/documentation#distributed-ai',
    tag: 'Models',
  },
  {
    id: 4,
    date: '2025-09-09',
    title: 'Idle Hardware Is an Untapped AI Resource',
    summary:
      'Demand for AI computing keeps rising while many capable home and office computers sit idle for much of the day. We look at how sharing a bounded slice of CPU, memory and GPU — with battery protection below 20% — can turn that idle time into useful work and GLOB rewards.',
    source: 'Glob Network Blog',
    url: '/documentation#resource-sharing',
    tag: 'Compute',
  },
  {
    id: 3,
    date: '2025-08-19',
    title: 'Privacy in Shared Inference: What Users Should Know',
    summary:
      'As more AI runs outside traditional data centres, questions about who can see a prompt become more pressing. Our commentary sets out what any inference provider must process, the protections built into Glob Network, and why secrets never belong in a prompt.',
    source: 'Glob Network Research',
    url: '/blog/security-privacy-distributed-inference',
    tag: 'Privacy',
  },
  {
    id: 2,
    date: '2025-07-29',
    title: 'Streaming Has Become the Standard Way to Deliver AI Answers',
    summary:
      'Chat interfaces across the industry now show answers as they are generated rather than after they finish. We explain how the Glob Network API streams tokens over server-sent events, and how stopping and reconnecting work for developers.',
    source: 'Glob Network Blog',
    url: '/documentation#api',
    tag: 'Developers',
  },
  {
    id: 1,
    date: '2025-07-01',
    title: 'Fair Pay for Shared Compute Starts with a Published Formula',
    summary:
      'Networks that pay people for computing power only earn trust when the rules are clear. Glob Network rewards every task with one formula — 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0) — computed by the server and credited once. Here is why we chose transparency.',
    source: 'Glob Network Blog',
    url: '/blog/how-glb-rewards-are-computed',
    tag: 'Token Economy',
  },
];
