/** Content of /about. */
export const ABOUT: {
  vision: string;
  mission: string;
  problem: { title: string; html: string };
  solution: { title: string; html: string };
  team: { role: string; bio: string; address: string }[];
  trustCards: { title: string; text: string }[];
  journey: { date: string; title: string; text: string; current?: boolean }[];
} = {
  vision:
    'A world where powerful AI is not reserved for whoever owns the biggest data centre, but is run and shared by the people who contribute the computing power behind it.',
  mission:
    'To make large language models accessible and affordable by running them across everyday computers, and to reward the people who share their GPU, CPU and memory fairly and transparently with GLOB tokens.',
  problem: {
    title: 'The Problem',
    html: `
<p>The most capable open language models have outgrown ordinary computers. A 70-billion-parameter model needs about 140 GB of memory just to hold its weights — far more than a laptop, a gaming PC or most workstations have. Running such models has meant renting expensive data-centre hardware, which keeps them out of reach for many individuals, small businesses, developers and educators.</p>
<p>At the same time, a great deal of capable hardware in homes and offices sits idle for much of the day, earning its owners nothing.</p>
`,
  },
  solution: {
    title: 'Our Solution',
    html: `
<p>Glob Network splits large models across connected devices. A 140 GB model becomes 4 shards of about 35 GB, each running on a different peer; the peers work together peer to peer, and a typical task completes in under 30 seconds.</p>
<ul>
  <li><strong>Providers</strong> install the desktop client for Windows, macOS or Linux, choose how much CPU, memory and GPU to share, and earn 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0) for every completed task — typically 25–150 GLB.</li>
  <li><strong>Users</strong> open the web app, chat with the network's language models in the AI Assistant and pay in GLOB tokens — earned by sharing, or bought as token packages.</li>
</ul>
<p>Idle hardware does useful work, the people who provide it are rewarded, and large models become available to everyone.</p>
`,
  },
  team: [
    {
      role: 'Founder',
      bio: 'Founded Glob Network after the research paper of August 2024 on running large language models across shared consumer hardware. Took the project through a startup programme in November 2024 and into platform development and the June 2025 beta, and leads product, engineering and operations as the UK-based individual operator of the platform.',
      address: 'Glob Network, London, United Kingdom',
    },
  ],
  trustCards: [
    {
      title: 'Security First',
      text: 'Passwords hashed with argon2id, e-mail verification codes at sign-up, 15-minute access tokens with rotating refresh tokens, and wallets only their owner can read.',
    },
    {
      title: 'High Performance',
      text: 'Models are split into shards that run across peers: a 140 GB model runs as 4 shards of about 35 GB, and a typical task completes in under 30 seconds.',
    },
    {
      title: 'Fair Rewards',
      text: 'Every completed task pays its provider by one published formula — 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0), typically 25–150 GLB — computed by the server and credited once.',
    },
    {
      title: 'Community Driven',
      text: 'The network runs on hardware shared by its members. Join the discussion on Discord, follow the code on GitHub and help shape the roadmap to the stable release.',
    },
  ],
  journey: [
    {
      date: 'Aug 2024',
      title: 'Research Paper',
      text: 'The research behind Glob Network: splitting large language models into shards that run on connected consumer devices, and rewarding the people who share them.',
    },
    {
      date: 'Nov 2024',
      title: 'Startup Programme',
      text: 'Glob Network joins a startup programme to turn the research into a product.',
    },
    {
      date: 'Q1 2025',
      title: 'Platform Development',
      text: 'The desktop client, web app, GLOB token wallet and API are built.',
    },
    {
      date: 'June 2025',
      title: 'Beta Launch',
      text: 'Desktop client 0.1.0-beta3 for Windows, macOS and Linux is released on June 4, together with the web app.',
      current: true,
    },
    {
      date: '2026',
      title: 'Production Release',
      text: 'Mobile apps in Q1 2026 and the stable release in Q2 2026 lead the network from beta into production.',
    },
  ],
};
