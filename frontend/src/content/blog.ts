import type { BlogCategory, BlogPost } from './types';

/** Filter buttons of /blog, in display order. */
export const BLOG_CATEGORIES: { id: 'all' | BlogCategory; label: string }[] = [
  { id: 'all', label: 'All Posts' },
  { id: 'announcements', label: 'Announcements' },
  { id: 'token-economy', label: 'Token Economy' },
  { id: 'tutorials', label: 'Tutorials' },
  { id: 'releases', label: 'Releases' },
  { id: 'technical', label: 'Technical' },
  { id: 'community', label: 'Community' },
];

/** Words in an HTML string (tags and entities removed). */
function wordCount(html: string): number {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z0-9#]+;/gi, ' ')
    .split(/\s+/)
    .filter((w) => /[A-Za-z0-9]/.test(w)).length;
}

/** Reading time at about 200 words per minute, at least 1 minute. */
function readingMinutes(html: string): number {
  return Math.max(1, Math.round(wordCount(html) / 200));
}

type PostInput = Omit<BlogPost, 'image' | 'readingMinutes'>;

function post(input: PostInput): BlogPost {
  return { ...input, image: `/media/blog/${input.slug}.svg`, readingMinutes: readingMinutes(input.content) };
}

/** The 8 static posts, newest first. Exactly one is featured. */
export const BLOG_POSTS: BlogPost[] = [
  post({
    id: 8,
    title: 'Community Update: The Road to Mobile Apps and a Stable Release in 2026',
    slug: 'community-update-road-to-2026',
    excerpt:
      'Five months into the beta, here is where Glob Network stands, what comes next — mobile apps in Q1 2026 and a stable release in Q2 2026 — and how you can help shape it.',
    date: '2025-11-03',
    author: 'Founder',
    category: 'community',
    featured: false,
    content: `
<p>Glob Network started as a research question: can everyday computers, working together, run language models that are too large for any one of them? Since the beta opened in June 2025, people on Windows, macOS and Linux have been answering that question with their own hardware. This update looks back at how we got here, sets out the roadmap for 2026, and explains how you can take part.</p>

<h2>Where we came from</h2>
<ul>
  <li><strong>August 2024 — research paper.</strong> The idea behind the network: split a large model into shards, place the shards on connected devices, and pass the work between them peer to peer.</li>
  <li><strong>November 2024 — startup programme.</strong> The project joined a startup programme, which turned the research into a plan for a product.</li>
  <li><strong>Q1 2025 — platform development.</strong> The desktop client, the web app, the token wallet and the API were built.</li>
  <li><strong>June 2025 — beta.</strong> Version 0.1.0-beta3 of the desktop client was released on June 4, together with the web app at <a href="/app/auth">/app</a>.</li>
</ul>

<h2>What the beta has taught us</h2>
<p>Running a beta in public is humbling in a useful way. A few lessons shape the next releases:</p>
<ul>
  <li><strong>Availability must be honest.</strong> The model list only marks a model as available while at least one live node has it loaded. It is better to show "unavailable" than to accept a request nobody can serve.</li>
  <li><strong>Providers want control.</strong> The allocation sliders — CPU 10–80%, memory 20–70%, GPU 0–90% — and the battery guard that stops sharing below 20% matter as much as the rewards. People share more readily when they know exactly what they are sharing.</li>
  <li><strong>Clear pricing builds trust.</strong> Users of the AI Assistant want to see what a message costs. The assistant header shows the tokens used in a conversation, and every spend appears as a transaction in the Token Wallet.</li>
</ul>

<h2>The roadmap</h2>
<table>
  <thead>
    <tr><th>When</th><th>Milestone</th><th>What it means for you</th></tr>
  </thead>
  <tbody>
    <tr><td>Now</td><td>Beta Release</td><td>Desktop client for Windows, macOS and Linux; web app with AI Assistant and Token Wallet.</td></tr>
    <tr><td>Q1 2026</td><td>Mobile Apps</td><td>iOS and Android, with a Progressive Web App, native performance and push notifications.</td></tr>
    <tr><td>Q2 2026</td><td>Stable Release</td><td>The first non-beta desktop client.</td></tr>
    <tr><td>2026</td><td>Production</td><td>The network moves from beta to production operation.</td></tr>
  </tbody>
</table>
<p>Mobile apps are not available today. The Mobile card on the <a href="/downloads">Downloads</a> page will stay at "Coming Soon" until they are ready, and we will announce them on the <a href="/updates">Updates</a> page and here on the blog.</p>

<h2>How to get involved</h2>
<ol>
  <li><strong>Share resources.</strong> Install the desktop client from <a href="/downloads">Downloads</a>, choose your limits and let your idle hardware earn GLOB tokens (GLB). Our <a href="/blog/install-desktop-client-share-resources">installation tutorial</a> walks you through it.</li>
  <li><strong>Use the network.</strong> Try the AI Assistant in the <a href="/app/auth">web app</a> and tell us where it helps and where it falls short.</li>
  <li><strong>Join the conversation.</strong> Our chat community on <a href="https://discord.gg/globnetwork">Discord</a> is where beta testers compare set-ups, report bugs and discuss the roadmap.</li>
  <li><strong>Follow the code.</strong> Our public repositories live at <a href="https://github.com/globnetwork">github.com/globnetwork</a>.</li>
  <li><strong>Tell us your story.</strong> The <a href="/contact">Contact</a> page has a "Submit Testimonial" tab. We only publish testimonials from people who have given their consent.</li>
</ol>

<h2>Getting help</h2>
<p>For anything account-related, write to <a href="mailto:support@globnetwork.io">support@globnetwork.io</a> or use the contact form. We answer within 24–48 hours on business days. Many questions are already answered in the <a href="/documentation#faq">documentation FAQ</a>.</p>

<p>Thank you to everyone who installed a beta, reported a bug or simply asked a hard question. The network is only as strong as the people who run it.</p>
<p><em>— Founder, Glob Network</em></p>
`,
  }),

  post({
    id: 7,
    title: 'Tutorial: Using the AI Assistant and Your Token Wallet',
    slug: 'using-ai-assistant-and-token-wallet',
    excerpt:
      'A practical walkthrough of the web app: pick a model, chat with the AI Assistant, manage conversations, understand what each message costs and top up your GLOB balance.',
    date: '2025-09-16',
    author: 'Glob Network Team',
    category: 'tutorials',
    featured: false,
    content: `
<p>The Glob Network web app runs in your browser at <a href="/app/auth">/app</a>. It is where you use the network's language models and look after your GLOB tokens. You do not need the desktop client to use it — the desktop client is only needed to share resources and earn tokens. This tutorial covers the two features you will use most: the AI Assistant and the Token Wallet.</p>

<h2>1. Sign in</h2>
<p>Open <a href="/app/auth">/app/auth</a> and sign in with your e-mail and password, or with Google, GitHub or Microsoft. New here? Choose "Create your account", enter a username, your e-mail and a password of at least 8 characters, then enter the 6-digit code we e-mail you on the "Verify your email" step. You must be 18 or older, and each person may hold one account.</p>
<p>After signing in you land on the <strong>Dashboard</strong>: your token balance, connected peers and active tasks, plus quick actions for the AI Assistant, buying tokens and downloading the desktop app.</p>

<h2>2. Choose a model</h2>
<p>Open <strong>AI Assistant</strong> from the sidebar. The model dropdown shows each model's name, parameter count, description, context length and status. The network currently offers:</p>
<table>
  <thead>
    <tr><th>Model</th><th>Parameters</th><th>Good for</th></tr>
  </thead>
  <tbody>
    <tr><td><code>llama-3.3-70b-instruct</code> (default)</td><td>70B</td><td>Chat, coding and analysis where quality matters most.</td></tr>
    <tr><td><code>llama-3-70b-instruct</code></td><td>70B</td><td>General-purpose answers from a large model.</td></tr>
    <tr><td><code>llama-3-8b-instruct</code></td><td>8B</td><td>Everyday questions with quicker turnaround.</td></tr>
    <tr><td><code>llama-3.2-1b-instruct</code></td><td>1B</td><td>Short, fast answers.</td></tr>
  </tbody>
</table>
<p>A model is "available" only while at least one live node on the network has it loaded. If your favourite model shows another status, pick a different one or try again later.</p>

<h2>3. Chat</h2>
<ul>
  <li>Type in the box at the bottom. <strong>Enter</strong> sends; <strong>Shift+Enter</strong> adds a new line.</li>
  <li>The reply streams in word by word and is marked "Generating..." until it is complete.</li>
  <li>Changed your mind? The send button turns into a red <strong>Stop generation</strong> button while a reply is being written. Stopping keeps the text produced so far.</li>
  <li>If a message fails, it shows an error icon with a <strong>Retry</strong> link.</li>
</ul>
<p>Each message shows the number of tokens used and the model that answered. The header keeps a running total for the conversation.</p>

<h2>4. Manage conversations</h2>
<p>Your first message creates a conversation automatically. The conversation sidebar lets you search your history, rename a conversation (Enter saves, Escape cancels), export it as a file, or delete it after a confirmation. Use the new-conversation button to start fresh with a clean greeting.</p>

<h2>5. Understand the cost</h2>
<p>Every message uses tokens from your balance, counted on both your prompt and the model's reply. Longer prompts, longer answers and larger models cost more. Before a reply starts, the network reserves enough of your balance to cover it; when the reply ends you are charged only for the tokens actually used and the rest is released.</p>
<p>If your balance runs out you will see an <strong>Insufficient GLB Tokens</strong> notice. Your conversation is saved — top up in the wallet, or earn tokens by sharing resources, and carry on where you left off.</p>

<h2>6. The Token Wallet</h2>
<p>Open <strong>Token Wallet</strong> from the sidebar. Four cards summarise your account: Current Balance (with an approximate USD value), Total Earned, Total Spent and Pending. Below them is the <strong>Purchase Tokens</strong> grid:</p>
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
<p>Click a package to buy it. Payments are handled by our payment processor; once the payment completes, the tokens plus any bonus are added to your balance and the purchase appears in your history.</p>
<p>The <strong>Recent Transactions</strong> table lists each entry's type, description, amount, status and date. Earnings, the welcome bonus, bonuses and rewards are shown in green with a plus sign; other entries, such as spending on AI messages, are shown in red.</p>

<h2>7. Earn instead of buying</h2>
<p>Resource sharing, the peer-to-peer network and earning tokens are desktop-only features. Install the client from <a href="/downloads">Downloads</a> and follow our <a href="/blog/install-desktop-client-share-resources">installation tutorial</a> — every task your computer completes earns GLB.</p>
`,
  }),

  post({
    id: 6,
    title: 'Security and Privacy in Distributed Inference',
    slug: 'security-privacy-distributed-inference',
    excerpt:
      'What happens to your prompts, your account and your computer when AI runs on a network of shared devices — the protections we have built in, and the limits you should know about.',
    date: '2025-08-12',
    author: 'Glob Network Team',
    category: 'technical',
    featured: false,
    content: `
<p>Running AI on a network of other people's computers raises fair questions. Who can see my prompt? What does the desktop client do on my machine? How is my account protected? This post answers them plainly, including the limits that no distributed system can wish away.</p>

<h2>Your account</h2>
<ul>
  <li><strong>Passwords are never stored in readable form.</strong> They are hashed with argon2id, a modern algorithm designed to resist cracking. Passwords must be at least 8 characters, and very common passwords are refused.</li>
  <li><strong>E-mail verification is required.</strong> Creating an account takes a one-time 6-digit code sent to your e-mail address. Codes are random, single-use, stored only as a hash and expire quickly.</li>
  <li><strong>Short-lived sessions.</strong> Access tokens last 15 minutes. They are renewed with a refresh token that is rotated on every use; if an old refresh token is ever presented again, every token of that sign-in is revoked.</li>
  <li><strong>Sign-in reveals nothing.</strong> A wrong password and an unknown e-mail get the same answer, so sign-in cannot be used to discover who has an account. Attempts are rate-limited.</li>
  <li><strong>Social sign-in uses PKCE.</strong> Google, GitHub and Microsoft sign-in use a single-use state and a PKCE challenge, which protects against intercepted authorization codes.</li>
  <li><strong>Wallets are private.</strong> Only you can read your wallet, transactions and notifications. A request for someone else's data is refused without revealing whether that account exists.</li>
</ul>

<h2>Your computer</h2>
<p>The desktop client only uses what you give it. You set the ceilings yourself — CPU between 10% and 80% (default 50%), memory between 20% and 70% (default 40%) and GPU between 0% and 90% (default 60%) — and on a laptop the client stops sharing when the battery drops below 20%. Setting GPU to 0% keeps your graphics card entirely to yourself.</p>
<p>The client runs model shards and exchanges model data with other peers. It does not need access to your personal files to do that work.</p>

<h2>Your prompts</h2>
<p>Here we want to be precise, because vague promises help nobody. To compute an answer, the node that processes your request has to work on your prompt. That is true of any AI service: somebody's hardware must read the text in order to respond to it. On Glob Network, that hardware may belong to another member of the network rather than to a data centre.</p>
<p>What we do about it:</p>
<ul>
  <li>Requests are authenticated and tied to your account; a stream can only be read or stopped by the user who started it.</li>
  <li>Only live nodes with a recent heartbeat receive work, and a model is offered only while such a node has it loaded.</li>
  <li>Conversations you keep are stored with your account so you can search, export and delete them. Deleting a conversation deletes its messages.</li>
</ul>
<p>What we recommend: <strong>do not put secrets in prompts</strong> — no passwords, API keys, card numbers or confidential personal data about other people. Treat the assistant as you would any online service.</p>

<h2>Your money and tokens</h2>
<p>Card payments for token packages go through our payment processor; we never see or store full card numbers. Every change to your balance is an entry in a ledger — purchases, spending, earnings, bonuses and transfers — so your history always adds up. Before a generation starts, a hold is placed on your balance; when it ends you are charged once for the tokens actually used, even if a worker crashed and the job had to be retried.</p>

<h2>Retention and deletion</h2>
<p>We keep data only as long as we need it. Transaction records are kept for 7 years, as financial record-keeping requires, and usage logs for 2 years. You can delete your account at any time at <a href="/account-deletion">/account-deletion</a>, without signing in: we e-mail a 6-digit code (valid for 5 minutes) to prove the address is yours. Deletion revokes every session and removes your e-mail, username, password hash, linked sign-in identities, conversations and notifications. Ledger entries remain for the retention period, anonymised.</p>

<h2>Reporting a problem</h2>
<p>If you believe you have found a security issue, please e-mail <a href="mailto:support@globnetwork.io">support@globnetwork.io</a> with the details rather than posting them publicly. For how we handle personal data under UK GDPR, read our <a href="/privacy-policy">Privacy Policy</a>; for the technical summary, see <a href="/documentation#security-privacy">Security &amp; Privacy</a> in the documentation.</p>
`,
  }),

  post({
    id: 5,
    title: 'How GLB Rewards Are Computed',
    slug: 'how-glb-rewards-are-computed',
    excerpt:
      'Every task your computer completes earns GLOB tokens: 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0). Here is what each factor means, with worked examples.',
    date: '2025-07-08',
    author: 'Glob Network Team',
    category: 'token-economy',
    featured: false,
    content: `
<p>GLOB tokens (ticker GLB) are the currency of Glob Network. People who share their hardware earn them; people who use the network's AI models spend them. This post explains exactly how the earning side works, so you can estimate what your machine will earn before you install anything.</p>

<h2>The formula</h2>
<p>Every completed inference job is a <strong>task</strong>. When a task completes, the owner of the node that processed it is credited with:</p>
<blockquote><p><strong>Reward = 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0)</strong></p></blockquote>
<p>In practice this gives typically <strong>25–150 GLB per task</strong>. The amount is always computed by the server, never by the client, so every provider is paid by the same rules.</p>

<h2>Difficulty: how demanding was the task?</h2>
<p>Difficulty ranges from 1.0 to 3.0 and reflects how much work the task required. It is derived from the size of the model and the number of tokens processed. A short answer from a small model sits at the bottom of the range; a long answer from a 70-billion-parameter model sits near the top.</p>

<h2>Hardware score: how much does your machine contribute?</h2>
<p>The hardware score ranges from 0.5 to 2.0 and reflects the capability of the device that did the work. A typical laptop scores around 1.0; a gaming PC with a modern graphics card scores higher; a workstation with a top-end GPU reaches the maximum of 2.0.</p>

<h2>Worked examples</h2>
<table>
  <thead>
    <tr><th>Example device</th><th>Hardware score</th><th>Reward per task (difficulty 1.0–3.0)</th></tr>
  </thead>
  <tbody>
    <tr><td>Standard laptop</td><td>1.0×</td><td>25–75 GLB</td></tr>
    <tr><td>Gaming PC with RTX 4070</td><td>1.5×</td><td>38–113 GLB</td></tr>
    <tr><td>Workstation with RTX 4090</td><td>2.0×</td><td>50–150 GLB</td></tr>
  </tbody>
</table>
<p>For example, a task of difficulty 1.5 processed on a machine with a hardware score of 1.5 earns 25 × 1.5 × 1.5 = <strong>56.25 GLB</strong>. Amounts are kept to three decimal places in the ledger, so nothing is lost to rounding.</p>

<h2>When rewards arrive</h2>
<p>Rewards are credited automatically, once per task, as an <code>earning</code> transaction, and you receive a notification. Payouts can take up to 24 hours to appear. If an automatic credit ever fails, the provider can claim the task again through the API; the server checks that the task was processed by your node and has not already been rewarded, so a task can never be paid twice.</p>
<p>You can follow your earnings in the <a href="/app/auth">web app</a>: the Token Wallet shows Total Earned and lists each earning in green in Recent Transactions.</p>

<h2>The spending side</h2>
<p>Tokens earned by providers are the same tokens that users spend on AI. Each message in the AI Assistant costs tokens for both the prompt and the reply, with larger models costing more per token. Before a generation starts, the network reserves a hold on the user's balance; when the generation ends, one spending transaction is recorded for the tokens actually used and the rest of the hold is released. If a user stops a generation early, only the tokens produced so far are charged.</p>
<p>Users who do not share resources can buy tokens in the Token Wallet. The four packages are Starter (1,000 tokens for $10), Basic (5,000 + 500 bonus for $45), Pro (10,000 + 1,500 bonus for $85, our most popular) and Enterprise (50,000 + 10,000 bonus for $400).</p>

<h2>How to earn more</h2>
<ul>
  <li><strong>Stay online.</strong> Only live nodes receive work. A machine that is on, connected and not on low battery earns; one that is asleep does not.</li>
  <li><strong>Share your GPU.</strong> The GPU allocation defaults to 60% and can go up to 90%. The GPU does most of the heavy lifting for language models.</li>
  <li><strong>Use a good connection.</strong> The minimum is 5 Mbps; 50 Mbps or more is optimal, because peers exchange model data with each other.</li>
  <li><strong>Keep storage free.</strong> Model shards are large — a 140 GB model is split into four shards of about 35 GB.</li>
</ul>

<h2>What GLB is not</h2>
<p>GLOB tokens are credits for using the Glob Network platform. The approximate USD value shown in the app is for information only; Glob Network does not currently offer a way to exchange GLB for money, and nothing here is an offer of an investment. See the <a href="/terms-of-service">Terms of Service</a> for the full conditions, and the <a href="/documentation#token-economy">GLB Token Economy</a> documentation for a reference summary.</p>
`,
  }),

  post({
    id: 4,
    title: 'Tutorial: Install the Desktop Client and Start Sharing Resources',
    slug: 'install-desktop-client-share-resources',
    excerpt:
      'Step by step: check your system, install Glob Network on Windows, macOS or Linux, sign in, set your CPU, memory and GPU limits and start earning GLOB tokens.',
    date: '2025-06-18',
    author: 'Glob Network Team',
    category: 'tutorials',
    featured: false,
    content: `
<p>The Glob Network desktop client turns spare capacity on your computer into GLOB tokens (GLB). It runs quietly in the background, processes parts of AI tasks for the network and credits you for every task completed. This guide takes about fifteen minutes from download to your first shared task.</p>

<h2>Step 1: Check your system</h2>
<table>
  <thead>
    <tr><th></th><th>Minimum</th><th>Recommended</th><th>Optimal</th></tr>
  </thead>
  <tbody>
    <tr><td>Memory</td><td>8 GB RAM</td><td>16 GB+ RAM</td><td>32 GB+ RAM</td></tr>
    <tr><td>Processor</td><td>Dual-core or quad-core</td><td>8 cores</td><td>8 cores or more</td></tr>
    <tr><td>Internet</td><td>5+ Mbps</td><td>Faster is better</td><td>50+ Mbps</td></tr>
  </tbody>
</table>
<p>Free storage: our pages give two figures, 10 GB and 50 GB. 10 GB is enough to install and run the client; plan for 50 GB if you want to host model shards, which are about 35 GB each for a 140 GB model.</p>
<p>Supported systems: Windows 10 (version 1903 or later) or Windows 11, 64-bit; macOS 10.15 or later on Intel or Apple Silicon (some of our pages state macOS 11 or later — if you are on 10.15 and hit problems, please tell us); Ubuntu 20.04 or later and other distributions such as Debian, Fedora and Arch.</p>

<h2>Step 2: Download</h2>
<p>Open the <a href="/downloads">Downloads</a> page. It detects your operating system and highlights the matching card, with a "Download for …" button. The current release is 0.1.0-beta3, a beta.</p>
<ul>
  <li><strong>Windows:</strong> an <code>.exe</code> installer.</li>
  <li><strong>macOS:</strong> a <code>.dmg</code> disk image containing a Universal Binary that runs natively on Intel and on Apple Silicon (M1/M2/M3).</li>
  <li><strong>Linux:</strong> an <code>AppImage</code> that runs on most distributions, or a <code>.deb</code> package for Ubuntu and Debian.</li>
</ul>
<p>Release details and changelogs are published at <a href="https://releases.globnetwork.io">releases.globnetwork.io</a>.</p>

<h2>Step 3: Install</h2>
<h3>Windows</h3>
<p>Run the downloaded <code>.exe</code> and follow the installer. When it finishes, start Glob Network from the Start menu.</p>
<h3>macOS</h3>
<p>Open the <code>.dmg</code> and drag Glob Network into your Applications folder, then start it from Applications or Launchpad.</p>
<h3>Linux</h3>
<p>The file names below are examples — use the names of the files you downloaded. For the AppImage, make the file executable and run it:</p>
<pre><code>chmod +x ./Glob-Network-0.1.0-beta3.AppImage
./Glob-Network-0.1.0-beta3.AppImage</code></pre>
<p>For the DEB package on Ubuntu or Debian:</p>
<pre><code>sudo apt install ./glob-network_0.1.0-beta3_amd64.deb</code></pre>

<h2>Step 4: Sign in</h2>
<p>Sign in with the e-mail address and password of your Glob Network account. If you do not have one yet, create it in the <a href="/app/auth">web app</a> — you will confirm your e-mail with a 6-digit code. If you signed up with Google, GitHub or Microsoft, complete that sign-in in the browser; the web app then confirms that you can log in to the desktop app with your e-mail.</p>

<h2>Step 5: Choose what to share</h2>
<p>You stay in charge of your machine. Each resource has a range and a sensible default:</p>
<table>
  <thead>
    <tr><th>Resource</th><th>Range</th><th>Default</th></tr>
  </thead>
  <tbody>
    <tr><td>CPU</td><td>10–80%</td><td>50%</td></tr>
    <tr><td>Memory</td><td>20–70%</td><td>40%</td></tr>
    <tr><td>GPU</td><td>0–90%</td><td>60%</td></tr>
  </tbody>
</table>
<p>On a laptop, the client stops sharing when the battery falls below 20%, so the network never drains your last bit of charge. If you use your computer for gaming or video editing, lower the GPU share while you work; set it to 0% to keep the GPU entirely to yourself.</p>

<h2>Step 6: Start earning</h2>
<p>Once sharing is on, your node announces itself to the network and begins receiving work for the models it can hold. Each completed task earns 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0) — typically 25–150 GLB. A standard laptop (1.0×) earns about 25–75 GLB per task; a gaming PC with an RTX 4070 (1.5×) about 38–113 GLB; a workstation with an RTX 4090 (2.0×) about 50–150 GLB. Read <a href="/blog/how-glb-rewards-are-computed">How GLB Rewards Are Computed</a> for the details.</p>
<p>Rewards are credited automatically and can take up to 24 hours to appear. Check them in the Token Wallet of the <a href="/app/auth">web app</a>, where each earning is listed in green.</p>

<h2>Troubleshooting</h2>
<ul>
  <li><strong>No tasks arriving?</strong> Make sure the computer is awake, online and not below 20% battery, and that you have free storage for model shards.</li>
  <li><strong>Computer feels slow?</strong> Lower the CPU or GPU share; the defaults are a good starting point.</li>
  <li><strong>Still stuck?</strong> See the <a href="/documentation#faq">FAQ</a>, ask in our <a href="https://discord.gg/globnetwork">Discord community</a> or e-mail <a href="mailto:support@globnetwork.io">support@globnetwork.io</a>.</li>
</ul>
`,
  }),

  post({
    id: 3,
    title: 'Release Notes: Desktop Client 0.1.0-beta3',
    slug: 'release-notes-0-1-0-beta3',
    excerpt:
      'Version 0.1.0-beta3 of the Glob Network desktop client is out for Windows, macOS and Linux. Here is what it includes, the file formats and sizes, and the known limitations of this beta.',
    date: '2025-06-05',
    author: 'Glob Network Team',
    category: 'releases',
    featured: false,
    content: `
<p>Version <strong>0.1.0-beta3</strong> of the Glob Network desktop client was released on June 4, 2025. It is the first build we are offering to everyone, and it is a beta: fully usable, but still changing quickly. These notes describe what is in it, how to get it and what to watch out for.</p>

<h2>Downloads</h2>
<table>
  <thead>
    <tr><th>Platform</th><th>Format</th><th>Size</th><th>Architecture</th></tr>
  </thead>
  <tbody>
    <tr><td>Windows 10/11</td><td><code>.exe</code> installer</td><td>125.8 MB (125,829,120 bytes)</td><td>x64</td></tr>
    <tr><td>macOS 10.15+</td><td><code>.dmg</code> disk image</td><td>92.2 MB (92,216,776 bytes)</td><td>Universal (Intel and Apple Silicon)</td></tr>
    <tr><td>Linux</td><td><code>AppImage</code></td><td>139.5 MB (139,460,608 bytes)</td><td>x64</td></tr>
    <tr><td>Linux (Ubuntu/Debian)</td><td><code>.deb</code> package</td><td>See the release page</td><td>x64</td></tr>
  </tbody>
</table>
<p>Get the build for your system from the <a href="/downloads">Downloads</a> page, which detects your operating system. Release information, including whether a build is a prerelease, is published at <a href="https://releases.globnetwork.io">releases.globnetwork.io</a>. Any version containing "beta" or "alpha" is marked as a prerelease on the Downloads page.</p>

<h2>What is included</h2>
<h3>Resource sharing</h3>
<ul>
  <li>Separate limits for CPU (10–80%, default 50%), memory (20–70%, default 40%) and GPU (0–90%, default 60%).</li>
  <li>Battery protection: sharing stops when a laptop's battery is below 20%.</li>
  <li>Background processing, so you can keep working while your node serves the network.</li>
</ul>
<h3>Platform support</h3>
<ul>
  <li><strong>Windows:</strong> desktop application with GPU acceleration and background processing.</li>
  <li><strong>macOS:</strong> Universal Binary with native performance on Intel and on Apple Silicon (M1/M2/M3).</li>
  <li><strong>Linux:</strong> AppImage and DEB formats with GPU support and background processing, for Ubuntu/Debian, Fedora and Arch.</li>
</ul>
<h3>Distributed inference</h3>
<ul>
  <li>Peer-to-peer processing of model shards: a 140 GB model is split into 4 shards of about 35 GB, with processing typically taking 25–30 seconds.</li>
  <li>Support for the four models of the network: Llama 3.3 70B Instruct, Llama 3 70B Instruct, Llama 3.2 1B Instruct and Llama 3 8B Instruct.</li>
</ul>
<h3>Rewards</h3>
<ul>
  <li>Automatic crediting of each completed task: 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0), typically 25–150 GLB per task.</li>
  <li>Earnings appear in the Token Wallet of the web app; payouts can take up to 24 hours.</li>
</ul>

<h2>The web app</h2>
<p>Alongside the client, the web app at <a href="/app/auth">/app</a> is open with the AI Assistant, the Token Wallet and a Dashboard. Resource sharing, the P2P network, model training and advanced analytics are desktop-only features; the web app marks them as "Desktop Only".</p>

<h2>Known limitations</h2>
<ul>
  <li><strong>Beta software.</strong> Expect rough edges and frequent updates. Please report problems — details below.</li>
  <li><strong>No mobile apps yet.</strong> iOS and Android are planned for Q1 2026.</li>
  <li><strong>Some dashboard figures are placeholders</strong> while the network statistics are being completed.</li>
  <li><strong>Pinning conversations</strong> in the AI Assistant arrives in a later update.</li>
  <li><strong>System requirement pages differ</strong> on free storage (10 GB or 50 GB) and on the oldest supported macOS (10.15 or 11). If you want to host model shards, plan for 50 GB.</li>
</ul>

<h2>Upgrading</h2>
<p>To upgrade from an earlier beta, download the new build for your system and install it. Your account, balance and transaction history are kept with your account on the platform, not on your computer, so they are not affected.</p>

<h2>Reporting bugs</h2>
<p>Tell us what happened, what you expected, your operating system and the client version. Post in our <a href="https://discord.gg/globnetwork">Discord community</a>, use the <a href="/contact">contact form</a> with the subject "Technical Support", or e-mail <a href="mailto:support@globnetwork.io">support@globnetwork.io</a>. We reply within 24–48 hours on business days.</p>
<p>The next milestones are mobile apps in Q1 2026 and the stable release in Q2 2026. Follow the <a href="/updates">Updates</a> page for what comes next.</p>
`,
  }),

  post({
    id: 2,
    title: 'Glob Network Beta Is Live: Share Your Hardware, Use Distributed AI',
    slug: 'glob-network-beta-launch',
    excerpt:
      'The Glob Network beta is open. Install the desktop client for Windows, macOS or Linux to share GPU, CPU and memory and earn GLOB tokens, or use the network’s language models in the web app.',
    date: '2025-06-04',
    author: 'Founder',
    category: 'announcements',
    featured: true,
    content: `
<p>Today we are opening the Glob Network beta. Version 0.1.0-beta3 of the desktop client is available for Windows, macOS and Linux, and the web app lets anyone with an account chat with the network's language models and manage a wallet of GLOB tokens (GLB). This is the moment the project has been working towards since our research paper in August 2024.</p>

<h2>Why Glob Network</h2>
<p>The most capable open language models have outgrown ordinary computers. A 70-billion-parameter model stored at 16-bit precision takes about 140 GB — far more memory than a laptop, a gaming PC or most workstations have. Running such models has meant renting expensive data-centre hardware, which puts them out of reach for many individuals, small businesses, developers and educators.</p>
<p>At the same time, a great deal of capable hardware sits idle for much of the day. Glob Network connects the two. A large model is split into shards, each shard runs on a connected device, and the devices work together peer to peer to answer a request. The people who share their GPU, CPU and memory earn GLOB tokens; the people who use the models spend them.</p>

<h2>What is in the beta</h2>
<ul>
  <li><strong>The desktop client</strong> for Windows 10/11 (64-bit), macOS 10.15+ (a Universal Binary for Intel and Apple Silicon) and Linux (AppImage and DEB; Ubuntu/Debian, Fedora and Arch). It runs in the background, lets you decide how much of your CPU, memory and GPU the network may use, and earns tokens for each completed task.</li>
  <li><strong>The web app</strong> at <a href="/app/auth">/app</a>, with the AI Assistant, the Token Wallet and a Dashboard. You can use it without installing anything.</li>
  <li><strong>Four language models</strong>: Llama 3.3 70B Instruct (the default), Llama 3 70B Instruct, Llama 3 8B Instruct and Llama 3.2 1B Instruct. A model is shown as available only while at least one live node has it loaded.</li>
  <li><strong>Token packages</strong> for people who would rather buy than earn: Starter, Basic, Pro and Enterprise.</li>
</ul>

<h2>Fair, transparent rewards</h2>
<p>Every completed inference job is a task, and the owner of the node that processed it is credited automatically:</p>
<blockquote><p>25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0) — typically 25–150 GLB per task.</p></blockquote>
<p>A standard laptop earns about 25–75 GLB per task; a gaming PC with an RTX 4070 about 38–113 GLB; a workstation with an RTX 4090 about 50–150 GLB. The full explanation is in <a href="/blog/how-glb-rewards-are-computed">How GLB Rewards Are Computed</a>.</p>

<h2>You stay in control</h2>
<p>Sharing is on your terms. CPU can be set between 10% and 80% (50% by default), memory between 20% and 70% (40% by default) and GPU between 0% and 90% (60% by default). On battery, the client stops sharing below 20% charge.</p>

<h2>Beta means beta</h2>
<p>We would rather set honest expectations than make big promises. This is a beta: some dashboard figures are still placeholders, a few features are incomplete, and things will change quickly as we learn. Mobile apps for iOS and Android are planned for Q1 2026, and the stable release for Q2 2026, on the way to production operation in 2026.</p>

<h2>Get started in four steps</h2>
<ol>
  <li>Download the client for your system from <a href="/downloads">Downloads</a>.</li>
  <li>Create your account at <a href="/app/auth">/app/auth</a>. You need to be 18 or older, each person may hold one account, and you confirm your e-mail with a 6-digit code.</li>
  <li>Choose how much CPU, memory and GPU to share, and let your node join the network.</li>
  <li>Try the AI Assistant in the web app and see the network answer.</li>
</ol>
<p>New to the platform? The <a href="/documentation#getting-started">Getting Started</a> guide covers everything in more detail.</p>

<h2>Thank you</h2>
<p>Glob Network only works because people choose to share. To everyone who tested early builds, asked difficult questions and pointed out what was broken: thank you. Join us on <a href="https://discord.gg/globnetwork">Discord</a>, follow the code at <a href="https://github.com/globnetwork">GitHub</a>, and tell us what you think at <a href="mailto:support@globnetwork.io">support@globnetwork.io</a>.</p>
<p><em>— Founder, Glob Network</em></p>
`,
  }),

  post({
    id: 1,
    title: 'How Model Sharding Across Peers Works',
    slug: 'how-model-sharding-works',
    excerpt:
      'A 140 GB model does not fit on one ordinary computer, but four shards of about 35 GB can each fit on a capable one. A look at how Glob Network splits models across peers.',
    date: '2025-03-20',
    author: 'Glob Network Team',
    category: 'technical',
    featured: false,
    content: `
<p>Glob Network's central idea is simple to state: run a language model that is too large for any single ordinary computer by spreading it across several of them. This post explains how that works — what a shard is, how a request travels between peers, and why the approach is practical on everyday hardware.</p>

<h2>The size problem</h2>
<p>A language model is, at heart, a very large set of numbers — its parameters — arranged in a stack of layers. A model with 70 billion parameters, stored at 16-bit precision (two bytes per parameter), needs about <strong>140 GB</strong> just to hold its weights. That is many times the memory of an ordinary laptop or desktop, and even high-end graphics cards hold only a fraction of it. No single consumer machine can hold such a model.</p>

<h2>Splitting the model into shards</h2>
<p>The layers of a model are processed one after another: the output of one layer is the input of the next. That makes the model easy to cut into consecutive blocks. Each block is a <strong>shard</strong>: a self-contained slice of the model that one device can load and run.</p>
<p>Our reference case is a 140 GB model split into <strong>4 shards of about 35 GB</strong>. A shard of that size fits comfortably on a workstation and can be spread across the GPU memory and system memory of a well-equipped desktop. Four such peers, working together, hold the whole model.</p>

<h2>How a request travels</h2>
<ol>
  <li><strong>The request arrives.</strong> A user sends a prompt from the web app or the API, choosing a model.</li>
  <li><strong>The network finds the peers.</strong> The request is queued for nodes that have that model's shards loaded. Only live nodes — those that have recently reported in with a heartbeat — are used.</li>
  <li><strong>The first shard starts.</strong> The peer holding the first shard turns the prompt into numbers and runs them through its layers.</li>
  <li><strong>Peer to peer.</strong> The intermediate result is passed directly to the peer with the next shard, and so on down the chain. Only these intermediate results travel between peers, not the model weights.</li>
  <li><strong>A token comes out.</strong> The last shard produces the next token of the answer, which is streamed back to the user straight away.</li>
  <li><strong>Repeat.</strong> Generation continues token by token until the answer is complete or a limit is reached.</li>
</ol>
<p>End to end, processing across the shards typically takes 25–30 seconds, and a typical task completes in under 30 seconds. Because tokens are streamed as they are produced, the user sees the answer forming long before it is finished.</p>

<h2>Why not just split the work randomly?</h2>
<p>Cutting along layer boundaries keeps the traffic between peers small and predictable. Each peer needs the full weights of its own layers but nothing of the others, so a shard is downloaded once and then reused for many requests. That is why free storage matters for providers: a shard of a large model takes about 35 GB on disk.</p>

<h2>Reliability</h2>
<p>Home computers are not data-centre servers. They sleep, lose connection and run out of battery. The design accounts for that:</p>
<ul>
  <li><strong>Heartbeats.</strong> Nodes report in regularly; one that goes quiet stops receiving work.</li>
  <li><strong>Honest availability.</strong> A model is offered to users only while live nodes have it loaded. Otherwise it is shown as unavailable, with the reason.</li>
  <li><strong>Retries without double charging.</strong> If a worker fails during a job, the job can be retried, and the user is charged at most once.</li>
  <li><strong>Battery protection.</strong> The desktop client stops sharing when a laptop's battery drops below 20%, so a node leaves gracefully rather than dying mid-task.</li>
</ul>

<h2>Fair pay for shared work</h2>
<p>Every completed task rewards the provider whose node processed it: 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0), typically 25–150 GLB per task. Larger models and longer answers raise the difficulty; more capable hardware raises the hardware score. Our post <a href="/blog/how-glb-rewards-are-computed">How GLB Rewards Are Computed</a> goes through the numbers.</p>

<h2>Learn more</h2>
<p>The <a href="/documentation#distributed-ai">Distributed AI Processing</a> and <a href="/documentation#how-it-works">How It Works</a> sections of the documentation summarise the architecture, and <a href="/documentation#system-requirements">System Requirements</a> lists what a node needs.</p>
`,
  }),
];

/** The post with this slug, or undefined. */
export function findPost(slug: string): BlogPost | undefined {
  return BLOG_POSTS.find((p) => p.slug === slug);
}

/** Up to `max` other posts of the same category, newest first. */
export function relatedPosts(post: BlogPost, max = 2): BlogPost[] {
  if (max <= 0) return [];
  return BLOG_POSTS.filter((p) => p.category === post.category && p.slug !== post.slug).slice(0, max);
}
