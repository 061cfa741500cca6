import type { DocSection } from './types';

/** Sections of /documentation, in sidebar order. `id` is the anchor (#getting-started …). */
export const DOC_SECTIONS: DocSection[] = [
  {
    id: 'getting-started',
    title: 'Getting Started',
    html: `
<p>Glob Network is a distributed AI platform. Large language models are split across connected devices: people share their GPU, CPU and memory through the desktop client and earn GLOB tokens (GLB), and others spend those tokens to use the network's language models in the web app. You can take part in either role, or both.</p>

<h3>Share resources and earn GLB</h3>
<ol>
  <li>Check that your computer meets the <a href="/documentation#system-requirements">system requirements</a>.</li>
  <li>Download the desktop client for Windows, macOS or Linux from <a href="/downloads">Downloads</a> and install it.</li>
  <li>Sign in with your Glob Network account (create one at <a href="/app/auth">/app/auth</a> if you do not have one yet).</li>
  <li>Choose how much CPU, memory and GPU to share — see <a href="/documentation#resource-sharing">Resource Sharing</a>.</li>
  <li>Leave the client running. Each task your node completes earns GLB, credited to your Token Wallet.</li>
</ol>

<h3>Use the network's AI</h3>
<ol>
  <li>Open the web app at <a href="/app/auth">/app/auth</a> and create an account, or sign in with Google, GitHub or Microsoft.</li>
  <li>Open the <strong>AI Assistant</strong>, pick a model and start a conversation. Each message uses tokens from your balance.</li>
  <li>Top up in the <strong>Token Wallet</strong> by buying a token package, or earn tokens by sharing resources.</li>
</ol>

<h3>Your account</h3>
<ul>
  <li>You must be at least 18 years old, and each person may hold one account.</li>
  <li>Sign-up requires a one-time 6-digit code sent to your e-mail address (the two-factor code). You can request a new code after 60 seconds.</li>
  <li>Passwords must be at least 8 characters.</li>
  <li>You can delete your account at any time at <a href="/account-deletion">/account-deletion</a>.</li>
</ul>

<h3>What works where</h3>
<table>
  <thead>
    <tr><th>Feature</th><th>Web app</th><th>Desktop client</th></tr>
  </thead>
  <tbody>
    <tr><td>AI Assistant</td><td>Available</td><td>—</td></tr>
    <tr><td>Token Wallet</td><td>Available</td><td>—</td></tr>
    <tr><td>Resource Sharing</td><td>Desktop Only</td><td>Yes</td></tr>
    <tr><td>P2P Network</td><td>Desktop Only</td><td>Yes</td></tr>
    <tr><td>Model Training</td><td>Desktop Only</td><td>Yes</td></tr>
    <tr><td>Advanced Analytics</td><td>Desktop Only</td><td>Yes</td></tr>
    <tr><td>Earning tokens</td><td>Desktop Only</td><td>Yes</td></tr>
  </tbody>
</table>
<p>The desktop client is currently in beta (version 0.1.0-beta3). Mobile apps for iOS and Android are planned for Q1 2026.</p>
`,
  },
  {
    id: 'distributed-ai',
    title: 'Distributed AI Processing',
    html: `
<p>The language models that Glob Network offers are too large for a single ordinary computer. A 70-billion-parameter model at 16-bit precision needs about 140 GB just for its weights. Instead of renting one large server, the network splits each model into shards and runs the shards on connected devices that work together peer to peer.</p>

<h3>Sharding</h3>
<ul>
  <li>A <strong>140 GB model splits into 4 shards of about 35 GB</strong> each.</li>
  <li>Each shard is a consecutive block of the model's layers; a peer loads its shard once and reuses it for many requests.</li>
  <li>During a request, intermediate results pass from peer to peer through the shards in order; the last shard produces the next token of the answer.</li>
  <li>Processing across the shards takes <strong>25–30 seconds</strong>; a typical task completes in under 30 seconds. Tokens are streamed to the user as they are produced.</li>
</ul>

<h3>Models</h3>
<table>
  <thead>
    <tr><th>Model id</th><th>Parameters</th><th>Context length</th><th>Notes</th></tr>
  </thead>
  <tbody>
    <tr><td><code>llama-3.3-70b-instruct</code></td><td>70B</td><td>8,192 tokens</td><td>Default model; chat, coding and analysis</td></tr>
    <tr><td><code>llama-3-70b-instruct</code></td><td>70B</td><td>8,192 tokens</td><td>Large general-purpose model</td></tr>
    <tr><td><code>llama-3.2-1b-instruct</code></td><td>1B</td><td>8,192 tokens</td><td>Small and fast, for short answers</td></tr>
    <tr><td><code>llama-3-8b-instruct</code></td><td>8B</td><td>8,192 tokens</td><td>Everyday questions</td></tr>
  </tbody>
</table>
<p>A model is <strong>available</strong> only while at least one live node — one that sent a heartbeat in the last 60 seconds — has it loaded. Otherwise it is listed as unavailable with the reason. The web app falls back to the default model list if the list cannot be loaded.</p>

<h3>Generation settings</h3>
<table>
  <thead>
    <tr><th>Setting</th><th>Default</th><th>Range</th></tr>
  </thead>
  <tbody>
    <tr><td>Temperature</td><td>0.7</td><td>0–2</td></tr>
    <tr><td>Max tokens</td><td>2,048</td><td>1–8,192, also capped by the model's context length</td></tr>
    <tr><td>Top-p</td><td>0.9</td><td>0–1</td></tr>
  </tbody>
</table>

<h3>Why distributed?</h3>
<ul>
  <li><strong>Access:</strong> large models become usable without owning or renting data-centre hardware.</li>
  <li><strong>Efficiency:</strong> hardware that would otherwise sit idle does useful work.</li>
  <li><strong>Fairness:</strong> the people who provide the computing power are the ones who are rewarded for it.</li>
</ul>
<p>For a longer explanation, read <a href="/blog/how-model-sharding-works">How Model Sharding Across Peers Works</a>.</p>
`,
  },
  {
    id: 'resource-sharing',
    title: 'Resource Sharing',
    html: `
<p>The desktop client shares part of your computer's CPU, memory and GPU with the network. You decide how much, and you can change your limits at any time.</p>

<h3>Allocation limits</h3>
<table>
  <thead>
    <tr><th>Resource</th><th>Allowed range</th><th>Default</th></tr>
  </thead>
  <tbody>
    <tr><td>CPU</td><td>10–80%</td><td>50%</td></tr>
    <tr><td>Memory</td><td>20–70%</td><td>40%</td></tr>
    <tr><td>GPU</td><td>0–90%</td><td>60%</td></tr>
  </tbody>
</table>
<p>The upper limits are deliberately below 100%, so your computer always keeps capacity for you. Setting GPU to 0% keeps your graphics card entirely to yourself.</p>

<h3>Battery protection</h3>
<p>On laptops, the client stops sharing when the battery falls below <strong>20%</strong>, so the network never drains your remaining charge.</p>

<h3>Background processing</h3>
<p>The client runs in the background on Windows, macOS and Linux. You can keep working while your node serves the network; lower the CPU or GPU share if you need more performance for games, video editing or other demanding work.</p>

<h3>What your resources are used for</h3>
<ul>
  <li><strong>GPU</strong> does most of the work of running model shards, with GPU acceleration on Windows, Linux and Apple Silicon Macs.</li>
  <li><strong>Memory</strong> holds the parts of a shard that are in use.</li>
  <li><strong>CPU</strong> coordinates the work and handles processing where no GPU is shared.</li>
  <li><strong>Storage</strong> keeps downloaded shards (about 35 GB each for a 140 GB model).</li>
  <li><strong>Network</strong> carries intermediate results between peers; at least 5 Mbps, 50+ Mbps optimal.</li>
</ul>

<h3>Tips for providers</h3>
<ul>
  <li>Only live nodes receive work. Keep the computer awake and online when you want to earn.</li>
  <li>A wired or stable wireless connection helps your node stay in the network.</li>
  <li>Start with the defaults and adjust after a day of normal use.</li>
</ul>
<p>Every completed task earns GLB — see <a href="/documentation#token-economy">GLB Token Economy</a>.</p>
`,
  },
  {
    id: 'token-economy',
    title: 'GLB Token Economy',
    html: `
<p>GLOB tokens (ticker GLB) are the currency of Glob Network. Providers earn them for processing AI tasks; users spend them on AI requests. Balances and amounts have at most three decimal places.</p>

<h3>Earning</h3>
<p>Every completed inference job is a task. The owner of the node that processed it is credited automatically, once, with:</p>
<blockquote><p><strong>25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0)</strong></p></blockquote>
<ul>
  <li><strong>Difficulty</strong> (1.0–3.0) comes from the model's size and the number of tokens processed.</li>
  <li><strong>Hardware score</strong> (0.5–2.0) reflects the capability of the device that did the work.</li>
  <li>Typical rewards are <strong>25–150 GLB per task</strong>.</li>
</ul>
<p>These figures are those of a <strong>standard task of 1,000 tokens</strong> (prompt and reply together). A task earns in proportion to the tokens the platform counted for it, and never more than its request was charged: at most 80% of the charge, to which the daily emission may add up to the rest, shared among the tasks falling due in proportion to their work. Whatever part of the charge was paid with a welcome bonus reaches the provider as bonus, spendable on the network but not transferable. A task whose node fails the platform's check of it earns nothing.</p>

<h3>Reward tiers</h3>
<table>
  <thead>
    <tr><th>Example device</th><th>Hardware score</th><th>GLB per task</th></tr>
  </thead>
  <tbody>
    <tr><td>Standard laptop</td><td>1.0×</td><td>25–75</td></tr>
    <tr><td>Gaming PC (RTX 4070)</td><td>1.5×</td><td>38–113</td></tr>
    <tr><td>Workstation (RTX 4090)</td><td>2.0×</td><td>50–150</td></tr>
  </tbody>
</table>
<p>Example: a task of difficulty 1.5 on a device with hardware score 1.5 earns 25 × 1.5 × 1.5 = 56.25 GLB. Rewards appear as <code>earning</code> transactions with a notification; payouts can take up to 24 hours.</p>

<h3>Spending</h3>
<ul>
  <li>Each AI request is charged per token, for both the prompt and the reply; larger models cost more per token.</li>
  <li>Before generation starts, a hold is placed on your balance. When it ends, one <code>spending</code> transaction is recorded for the tokens actually used and the rest of the hold is released.</li>
  <li>If you stop a generation, only the tokens produced so far are charged. If the hold runs out, generation stops.</li>
  <li>If your balance cannot pay for a request, the web app shows "Insufficient GLB Tokens"; your conversation is kept.</li>
</ul>

<h3>Token packages</h3>
<table>
  <thead>
    <tr><th>Package</th><th>Tokens</th><th>Bonus</th><th>Total credited</th><th>Price (USD)</th></tr>
  </thead>
  <tbody>
    <tr><td>Starter</td><td>1,000</td><td>0</td><td>1,000</td><td>$10</td></tr>
    <tr><td>Basic</td><td>5,000</td><td>500</td><td>5,500</td><td>$45</td></tr>
    <tr><td>Pro — Most Popular</td><td>10,000</td><td>1,500</td><td>11,500</td><td>$85</td></tr>
    <tr><td>Enterprise</td><td>50,000</td><td>10,000</td><td>60,000</td><td>$400</td></tr>
  </tbody>
</table>

<h3>Transaction types</h3>
<table>
  <thead>
    <tr><th>Type</th><th>Meaning</th></tr>
  </thead>
  <tbody>
    <tr><td><code>earning</code></td><td>Reward for a task processed by your node</td></tr>
    <tr><td><code>welcome_bonus</code></td><td>Credited once when you sign up</td></tr>
    <tr><td><code>bonus</code></td><td>A bonus credit</td></tr>
    <tr><td><code>reward</code></td><td>A provider reward claimed or granted</td></tr>
    <tr><td><code>spending</code></td><td>AI usage</td></tr>
    <tr><td><code>purchase</code></td><td>A token package bought</td></tr>
    <tr><td><code>transfer</code></td><td>GLOB sent to or received from another wallet</td></tr>
    <tr><td><code>refund</code></td><td>A reply's charge given back, when the node that served it failed the platform's check of that reply (shown with a green plus sign)</td></tr>
  </tbody>
</table>
<p>In the wallet's Recent Transactions table, earnings, the welcome bonus, bonuses and rewards are shown with a green plus sign; the other types are shown in red.</p>
<p>Transactions have the status completed, pending or failed. GLOB tokens are credits for use on the platform; the approximate USD value shown in the app is for information only. See the <a href="/terms-of-service">Terms of Service</a>.</p>
`,
  },
  {
    id: 'how-it-works',
    title: 'How It Works',
    html: `
<p>This is the life of one AI request on Glob Network, from the moment a user presses Enter to the moment the provider is paid.</p>
<ol>
  <li><strong>Request.</strong> A signed-in user sends a prompt from the AI Assistant (or the API), choosing a model.</li>
  <li><strong>Checks and hold.</strong> The server checks that the model exists and is available, then reserves a hold on the user's balance. If the balance cannot pay for the prompt, the request is refused with "insufficient tokens".</li>
  <li><strong>Queue.</strong> The request becomes a job in the queue for nodes that have the model loaded. Only live nodes, with a heartbeat in the last 60 seconds, receive work.</li>
  <li><strong>Distributed processing.</strong> The peers holding the model's shards process the request in turn, peer to peer. For a 140 GB model split into 4 shards of about 35 GB, processing takes 25–30 seconds; typical tasks complete in under 30 seconds.</li>
  <li><strong>Streaming.</strong> Each new piece of text is streamed to the user as soon as it is generated. The user can stop generation at any time.</li>
  <li><strong>Settlement.</strong> When the job ends, the user is charged once for the tokens actually used and the rest of the hold is released — even if a worker crashed and the job was retried.</li>
  <li><strong>Reward.</strong> The owner of the node that processed the task is credited with 25 GLB × difficulty × hardware score and notified. Payouts can take up to 24 hours.</li>
</ol>

<h3>The pieces</h3>
<table>
  <thead>
    <tr><th>Component</th><th>Role</th></tr>
  </thead>
  <tbody>
    <tr><td>Desktop client</td><td>Runs model shards on providers' computers within the limits they set, and earns GLB.</td></tr>
    <tr><td>Web app (<a href="/app/auth">/app</a>)</td><td>AI Assistant, Token Wallet and Dashboard for signed-in users.</td></tr>
    <tr><td>API (<code>/api</code>)</td><td>Accounts, wallet, inference and chat history; documented in the <a href="/documentation#api">API</a> section.</td></tr>
    <tr><td>Ledger</td><td>Records every purchase, spending, earning, bonus and transfer.</td></tr>
  </tbody>
</table>

<h3>Conversations</h3>
<p>Conversations in the AI Assistant are saved with your account: the user's message when it is sent, the assistant's reply when the stream ends (also after a stop or an error). You can search, rename, export (JSON or Markdown) and delete conversations.</p>
`,
  },
  {
    id: 'security-privacy',
    title: 'Security & Privacy',
    html: `
<h3>Account security</h3>
<ul>
  <li>Passwords are hashed with argon2id; they must be 8 to 128 characters and not one of the most common passwords.</li>
  <li>Sign-up requires a 6-digit code sent by e-mail. Codes are random, single-use and stored only as a hash; a sign-up code expires after 10 minutes.</li>
  <li>Access tokens are valid for 15 minutes. Refresh tokens rotate on every use and expire 30 days after sign-in; reusing an old refresh token revokes the whole sign-in.</li>
  <li>Sign-in gives the same answer for a wrong password and an unknown e-mail, and is rate-limited (10 attempts per 15 minutes per IP address and e-mail).</li>
  <li>Social sign-in with Google, GitHub or Microsoft uses a single-use state and PKCE.</li>
  <li>Wallets, transactions, notifications and conversations can only be read by their owner.</li>
</ul>

<h3>Your computer</h3>
<p>The desktop client uses only the CPU, memory and GPU share you allow (CPU 10–80%, memory 20–70%, GPU 0–90%) and stops sharing on battery below 20%.</p>

<h3>Your prompts</h3>
<p>To answer a prompt, the node processing it must compute on its text — on Glob Network that node may be another member's computer. Requests are authenticated and a stream can only be read or stopped by the user who started it, but <strong>do not include secrets</strong> such as passwords, API keys, payment details or other people's confidential data in prompts.</p>

<h3>Payments</h3>
<p>Card payments for token packages are handled by our payment processor; Glob Network never sees or stores full card numbers.</p>

<h3>Data retention</h3>
<table>
  <thead>
    <tr><th>Data</th><th>Kept for</th></tr>
  </thead>
  <tbody>
    <tr><td>Transaction records</td><td>7 years (anonymised after account deletion)</td></tr>
    <tr><td>Usage logs</td><td>2 years</td></tr>
    <tr><td>Account data and conversations</td><td>Until you delete them or your account</td></tr>
  </tbody>
</table>

<h3>Deleting your account</h3>
<p>Go to <a href="/account-deletion">/account-deletion</a> — no sign-in needed. Enter your e-mail, enter the 6-digit code we send (valid for 300 seconds) and confirm. Every session is revoked and your e-mail, username, password hash, linked identities, conversations and notifications are removed.</p>
<p>Full details are in the <a href="/privacy-policy">Privacy Policy</a>. Report security issues privately to <a href="mailto:support@globnetwork.io">support@globnetwork.io</a>.</p>
`,
  },
  {
    id: 'system-requirements',
    title: 'System Requirements',
    html: `
<h3>Hardware</h3>
<table>
  <thead>
    <tr><th></th><th>Minimum</th><th>Recommended</th><th>Optimal</th></tr>
  </thead>
  <tbody>
    <tr><td>Memory (RAM)</td><td>8 GB</td><td>16 GB or more</td><td>32 GB or more</td></tr>
    <tr><td>Processor</td><td>Dual-core or quad-core (see note)</td><td>8 cores</td><td>8 cores or more</td></tr>
    <tr><td>Free storage</td><td>10 GB or 50 GB (see note)</td><td>50 GB to host model shards</td><td>50 GB or more</td></tr>
    <tr><td>Internet</td><td>5+ Mbps</td><td>5+ Mbps</td><td>50+ Mbps</td></tr>
  </tbody>
</table>

<h3>Operating systems</h3>
<table>
  <thead>
    <tr><th>Platform</th><th>Supported versions</th><th>Formats</th></tr>
  </thead>
  <tbody>
    <tr><td>Windows</td><td>Windows 10 (version 1903 or later) or Windows 11, 64-bit</td><td><code>.exe</code> installer</td></tr>
    <tr><td>macOS</td><td>macOS 10.15 or later (some pages state macOS 11 or later); Intel and Apple Silicon (M1/M2/M3)</td><td><code>.dmg</code>, Universal Binary</td></tr>
    <tr><td>Linux</td><td>Ubuntu 20.04 or later; Debian, Fedora and Arch</td><td><code>AppImage</code> and <code>.deb</code></td></tr>
    <tr><td>Mobile</td><td>iOS and Android — coming in Q1 2026</td><td>Not available yet</td></tr>
  </tbody>
</table>

<h3>Notes where our pages differ</h3>
<ul>
  <li><strong>Processor:</strong> some pages give a dual-core processor as the minimum, others a quad-core. A quad-core processor gives a better experience.</li>
  <li><strong>Storage:</strong> some pages give 10 GB free storage as the minimum, others 50 GB. 10 GB is enough to install the client; a shard of a 140 GB model takes about 35 GB, so plan for 50 GB if you want to host shards.</li>
  <li><strong>macOS:</strong> some pages give macOS 10.15 as the oldest supported version, others macOS 11. If you run 10.15 and have problems, please tell us.</li>
</ul>
<p>A GPU is optional — GPU sharing can be set to 0% — but it does most of the work of running model shards and raises your hardware score, and with it your rewards (see <a href="/documentation#token-economy">reward tiers</a>).</p>
<p>The web app needs only a current web browser.</p>
`,
  },
  {
    id: 'faq',
    title: 'FAQ',
    html: `
<h3>What is Glob Network?</h3>
<p>A distributed AI platform. People share GPU, CPU and memory through a desktop client and earn GLOB tokens (GLB); others spend tokens to use the network's language models in the web app.</p>

<h3>How much can I earn?</h3>
<p>Each completed task earns 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0), typically 25–150 GLB. A standard laptop earns about 25–75 GLB per task, a gaming PC with an RTX 4070 about 38–113 GLB, and a workstation with an RTX 4090 about 50–150 GLB. How many tasks you receive depends on demand and on how long your node is online.</p>

<h3>When do rewards arrive?</h3>
<p>Rewards are credited automatically when a task completes; payouts can take up to 24 hours. They appear as earnings in the Token Wallet.</p>

<h3>Will sharing slow down my computer?</h3>
<p>You set the limits: CPU 10–80% (default 50%), memory 20–70% (default 40%) and GPU 0–90% (default 60%). Lower them whenever you need more performance, or set GPU to 0%.</p>

<h3>Does it drain my laptop battery?</h3>
<p>No. The client stops sharing when the battery is below 20%.</p>

<h3>Do I need the desktop client to use the AI Assistant?</h3>
<p>No. The AI Assistant and the Token Wallet run in the browser at <a href="/app/auth">/app</a>. The desktop client is needed for resource sharing, the P2P network, model training, advanced analytics and earning tokens.</p>

<h3>How much does a message cost?</h3>
<p>Messages are charged per token, for the prompt and the reply; larger models cost more per token. You are only charged for the tokens actually used, and stopping a reply early stops the charge.</p>

<h3>How do I buy tokens?</h3>
<p>In the Token Wallet: Starter 1,000 tokens for $10; Basic 5,000 + 500 bonus for $45; Pro 10,000 + 1,500 bonus for $85 (Most Popular); Enterprise 50,000 + 10,000 bonus for $400.</p>

<h3>Can I exchange GLB for money?</h3>
<p>No. GLOB tokens are credits for using the platform. Glob Network does not currently offer a way to exchange them for money; the USD value shown in the app is an approximation for information only.</p>

<h3>Is there a mobile app?</h3>
<p>Not yet. Mobile apps for iOS and Android are planned for Q1 2026; the stable desktop release is planned for Q2 2026.</p>

<h3>Who can see my prompts?</h3>
<p>The node that processes a request has to compute on its text, and it may be another member's computer. Don't include passwords, keys, payment details or other confidential data in prompts. See <a href="/documentation#security-privacy">Security &amp; Privacy</a>.</p>

<h3>Can I have more than one account?</h3>
<p>No. Each person may hold one account, and you must be 18 or older.</p>

<h3>How do I delete my account?</h3>
<p>Go to <a href="/account-deletion">/account-deletion</a>, enter your e-mail and the 6-digit code we send you, and confirm. You don't need to sign in.</p>

<h3>How do I get help?</h3>
<p>E-mail <a href="mailto:support@globnetwork.io">support@globnetwork.io</a> or use the <a href="/contact">contact form</a>; we reply within 24–48 hours on business days. The community is on <a href="https://discord.gg/globnetwork">Discord</a>.</p>
`,
  },
  {
    id: 'api',
    title: 'API',
    html: `
<p>The Glob Network API powers the web app and is available to developers. It is served under <code>/api</code> on the same origin as the web app, uses JSON everywhere except the inference stream (<code>text/event-stream</code>), and is described in full — with every request and response schema — in the interactive documentation at <a href="/api/docs">/api/docs</a>.</p>
<p>Field names are snake_case, except a few named by the web client: <code>streamId</code>, <code>modelId</code>, <code>maxTokens</code>, <code>userAgent</code> and <code>agreedToTerms</code>. GLOB amounts are decimal numbers with at most three decimals.</p>

<h3>Authentication</h3>
<p>Signed-in operations take an <code>Authorization: Bearer &lt;access_token&gt;</code> header. The access token is a JWT valid for 15 minutes.</p>
<ol>
  <li><strong>Create an account</strong> (once): <code>POST /api/users/send-otp</code> with <code>{"email", "purpose": "signup"}</code> e-mails a 6-digit code; <code>POST /api/users/verify-otp</code> with <code>{"email", "otp", "purpose"}</code> returns a <code>verification_token</code>; <code>POST /api/users/register-with-otp</code> with <code>{"email", "password", "username", "verification_token"}</code> creates the account and signs you in.</li>
  <li><strong>Sign in:</strong> <code>POST /api/users/login</code> with <code>{"email", "password"}</code> returns <code>access_token</code>, <code>refresh_token</code>, <code>token_type</code> (<code>Bearer</code>), <code>expires_in</code> (900 seconds) and <code>user</code>. Sign-in is limited to 10 attempts per 15 minutes per IP address and e-mail.</li>
  <li><strong>Refresh:</strong> before the access token expires, <code>POST /api/users/refresh</code> with <code>{"refresh_token"}</code> returns a new access token <em>and</em> a new refresh token. The old refresh token stops working; presenting it again revokes every token of that sign-in. A sign-in lasts at most 30 days.</li>
  <li><strong>Sign out:</strong> <code>POST /api/users/logout</code> with <code>{"refresh_token"}</code> revokes the sign-in (answers 204).</li>
</ol>

<h3>Example: sign in and list the models</h3>
<pre><code>BASE=https://globnetwork.io

curl -s -X POST "$BASE/api/users/login" \\
  -H 'Content-Type: application/json' \\
  -d '{"email":"you@example.com","password":"your-password"}'
# =&gt; {"access_token":"eyJ...","refresh_token":"rt_...","token_type":"Bearer","expires_in":900,"user":{...}}

ACCESS_TOKEN=eyJ...   # the access_token from the answer

curl -s "$BASE/api/inference/models" \\
  -H "Authorization: Bearer $ACCESS_TOKEN"</code></pre>

<h3>Streaming a completion</h3>
<p><code>POST /api/inference/stream/start</code> queues a generation and answers with its event stream. Send <code>streamId</code> (your own id for the job: letters, digits, <code>_</code> and <code>-</code>, up to 100 characters), <code>modelId</code>, exactly one of <code>prompt</code> or <code>messages</code>, optional <code>params</code> and optionally a <code>conversation_id</code> to save the exchange in a conversation. A parameter you leave out takes the conversation's saved setting, else its default (<code>temperature</code> 0.7, <code>max_tokens</code> 2048, <code>top_p</code> 0.9).</p>
<pre><code>curl -N -X POST "$BASE/api/inference/stream/start" \\
  -H "Authorization: Bearer $ACCESS_TOKEN" \\
  -H 'Content-Type: application/json' \\
  -d '{
    "streamId": "msg_1732184100000_k3j9x",
    "modelId": "llama-3.3-70b-instruct",
    "prompt": "Explain list comprehensions in Python in two sentences.",
    "params": {"temperature": 0.7, "max_tokens": 2048, "top_p": 0.9}
  }'</code></pre>
<p>Each event is an <code>id: &lt;n&gt;</code> line (its sequence number, from 1) and a <code>data: {json}</code> line, followed by a blank line. Lines starting with <code>:</code> are keep-alive comments to ignore.</p>
<pre><code>id: 1
data: {"type":"token","text":"List"}

id: 2
data: {"type":"token","text":" comprehensions build a list"}

id: 3
data: {"type":"token","text":" from an iterable in one expression."}

id: 4
data: {"type":"done","success":true,"usage":{"prompt_tokens":14,"completion_tokens":9,"total_tokens":23},"stop_reason":"stop"}</code></pre>
<table>
  <thead>
    <tr><th>Event <code>type</code></th><th>Fields</th><th>Meaning</th></tr>
  </thead>
  <tbody>
    <tr><td><code>token</code></td><td><code>text</code></td><td>The next piece of generated text; append it as is. Any number of these.</td></tr>
    <tr><td><code>done</code></td><td><code>success</code>, <code>usage</code>, <code>stop_reason</code></td><td>The last event of a successful job. <code>stop_reason</code> is <code>stop</code> (the model finished), <code>length</code> (max tokens or context reached), <code>abort</code> (stopped by you) or <code>budget</code> (the reserved balance was used up).</td></tr>
    <tr><td><code>error</code></td><td><code>code</code>, <code>message</code></td><td>The last event of a failed job. <code>code</code> is <code>INSUFFICIENT_TOKENS</code>, <code>MODEL_UNAVAILABLE</code>, <code>WORKER_FAILED</code>, <code>TIMEOUT</code> or <code>INTERNAL_ERROR</code>; <code>message</code> is safe to show.</td></tr>
  </tbody>
</table>
<ul>
  <li><strong>Stop:</strong> <code>POST /api/inference/stream/{id}/stop</code> ends generation within about a second; the stream then ends with a <code>done</code> event with <code>stop_reason: abort</code>, and only the tokens generated so far are charged.</li>
  <li><strong>Reconnect:</strong> <code>GET /api/inference/stream/{id}</code> replays the stream from the start, or from after the event named in a <code>Last-Event-ID</code> header, for a while after the job ends.</li>
  <li><strong>Idempotent:</strong> repeating a start request with the same <code>streamId</code> attaches to the existing job instead of starting a second one.</li>
  <li><strong>Without streaming:</strong> <code>POST /api/inference/generate</code> runs the same job and returns <code>choices[].text</code>, <code>usage</code> and <code>cost</code> in one JSON response.</li>
</ul>

<h3>Errors</h3>
<p>Every error has the same JSON body. Show <code>message</code>, else <code>error</code>:</p>
<pre><code>{"statusCode": 402, "message": "Payment required — insufficient tokens for this request.", "error": "INSUFFICIENT_TOKENS"}</code></pre>
<table>
  <thead>
    <tr><th>Status</th><th>When</th></tr>
  </thead>
  <tbody>
    <tr><td>400</td><td>The request does not match the API description; <code>details</code> lists the failing fields.</td></tr>
    <tr><td>401</td><td>Missing, expired or invalid access token — refresh it or sign in again.</td></tr>
    <tr><td>402</td><td>The balance cannot pay for the prompt (<code>INSUFFICIENT_TOKENS</code>).</td></tr>
    <tr><td>403</td><td>The resource belongs to another user.</td></tr>
    <tr><td>404</td><td>No such model, conversation, stream or other resource.</td></tr>
    <tr><td>409</td><td>A conflict, such as a <code>streamId</code> already used for a different request.</td></tr>
    <tr><td>429</td><td>Rate limit reached; retry after the <code>Retry-After</code> header's seconds.</td></tr>
    <tr><td>503</td><td>The model exists but no live node has it loaded.</td></tr>
  </tbody>
</table>
<p>Errors found before a stream starts are JSON responses; failures after it started arrive as an <code>error</code> event.</p>

<h3>Main endpoints</h3>
<table>
  <thead>
    <tr><th>Method and path</th><th>Purpose</th></tr>
  </thead>
  <tbody>
    <tr><td><code>POST /api/users/login</code></td><td>Sign in with e-mail and password</td></tr>
    <tr><td><code>POST /api/users/send-otp</code>, <code>/verify-otp</code>, <code>/register-with-otp</code></td><td>Sign up with an e-mailed code</td></tr>
    <tr><td><code>POST /api/users/refresh</code></td><td>Exchange a refresh token for a new token pair</td></tr>
    <tr><td><code>POST /api/users/logout</code></td><td>Revoke a sign-in</td></tr>
    <tr><td><code>GET /api/users/me</code></td><td>The signed-in user</td></tr>
    <tr><td><code>GET /api/inference/models</code></td><td>The models, their status and price per token</td></tr>
    <tr><td><code>POST /api/inference/stream/start</code></td><td>Start a generation and stream its tokens</td></tr>
    <tr><td><code>GET /api/inference/stream/{id}</code></td><td>Re-read a stream</td></tr>
    <tr><td><code>POST /api/inference/stream/{id}/stop</code></td><td>Stop a generation</td></tr>
    <tr><td><code>POST /api/inference/generate</code></td><td>Generate a completion and wait for it</td></tr>
    <tr><td><code>GET</code>, <code>POST /api/chat/conversations</code></td><td>List (optional <code>?search=</code>) or create conversations</td></tr>
    <tr><td><code>GET</code>, <code>PUT</code>, <code>DELETE /api/chat/conversations/{id}</code></td><td>Read, rename or pin, delete a conversation</td></tr>
    <tr><td><code>GET /api/chat/conversations/{id}/export</code></td><td>Export a conversation as JSON or Markdown</td></tr>
    <tr><td><code>GET /api/wallet/packages</code></td><td>The token packages for sale (public)</td></tr>
    <tr><td><code>GET /api/wallet/{userId}</code></td><td>Wallet summary: balance, totals and stats</td></tr>
    <tr><td><code>GET /api/users/{userId}/transactions</code></td><td>Transactions, newest first</td></tr>
    <tr><td><code>POST /api/wallet/{userId}/purchase</code></td><td>Buy a token package</td></tr>
    <tr><td><code>POST /api/wallet/{userId}/transfer</code></td><td>Send GLOB to another wallet</td></tr>
    <tr><td><code>GET /api/wallet/{userId}/earnings?days=30</code></td><td>Daily earnings</td></tr>
    <tr><td><code>POST /api/tokens/earn</code></td><td>Make sure the reward of a task your node served is recorded; it is paid after the settlement window</td></tr>
    <tr><td><code>GET /api/nodes</code>, <code>POST /api/nodes/join-tokens</code></td><td>Your nodes; a join token and the command that pairs a machine</td></tr>
    <tr><td><code>PATCH</code>, <code>DELETE /api/nodes/{id}</code></td><td>Rename, pause or resume a node, set its allocation; revoke it</td></tr>
    <tr><td><code>POST /api/nodes/register</code>, <code>/heartbeat</code>, <code>/jobs/claim</code>, <code>/jobs/{jobId}/events</code>, <code>/jobs/{jobId}/events/stream</code>, <code>/jobs/{jobId}/return</code></td><td>The node agent's operations (<code>npx glob-node</code>), with its node credential</td></tr>
    <tr><td><code>GET /api/stats/platform</code></td><td>Public network figures (active users, tasks, data processed)</td></tr>
    <tr><td><code>GET /api/health</code></td><td>Health of the API</td></tr>
  </tbody>
</table>
<p>Wallet, transaction and notification endpoints are owner-only: <code>{userId}</code> must be your own id. Questions about the API? Write to <a href="mailto:support@globnetwork.io">support@globnetwork.io</a>.</p>
`,
  },
];
