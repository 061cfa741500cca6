import { Link } from '@tanstack/react-router';
import { Icon, type IconName } from '../../components/CoreIcon';
import { HeroMedia } from './HeroMedia';
import { StatsStrip } from './StatsStrip';
import './home.css';

const FEATURES: { title: string; text: string; icon: IconName; tone?: 'cyan' }[] = [
  {
    title: 'Distributed Processing',
    text: 'Large language models are split into shards that run across connected devices: a 140 GB model becomes 4 shards of about 35 GB, working together peer to peer.',
    icon: 'network',
  },
  {
    title: 'Token Economy',
    text: 'Every completed task earns GLB: 25 GLB base × difficulty × hardware score, typically 25–150 GLB per task. Spend tokens to use the network’s models.',
    icon: 'token',
    tone: 'cyan',
  },
  {
    title: 'Secure & Private',
    text: 'Verified accounts, short-lived access tokens and encrypted connections. You decide exactly how much CPU, memory and GPU to share.',
    icon: 'shield',
  },
  {
    title: 'Scalable Solution',
    text: 'Every device that joins adds capacity. Typical tasks complete in under 30 seconds, and the network grows with its community.',
    icon: 'scale',
    tone: 'cyan',
  },
];

export function HomePage() {
  return (
    <>
      <section className="hero">
        <div className="container hero-grid">
          <div className="hero-copy">
            <p className="eyebrow">Distributed AI Network · Beta</p>
            <h1>
              Run AI together. <span className="accent-text">Earn as you share.</span>
            </h1>
            <p className="hero-lead">
              Glob Network splits large language models across everyday computers. Share your GPU, CPU and memory with the desktop client to earn GLB
              tokens, or chat with the network’s models in the web app.
            </p>
            <div className="btn-row hero-actions">
              <Link to="/downloads" className="btn btn-primary">
                <Icon name="download" />
                Download Client
              </Link>
              <Link to="/app/auth" preload={false} className="btn">
                Try Web App
              </Link>
              <Link to="/documentation" className="btn btn-ghost">
                <Icon name="book" />
                Read Documentation
              </Link>
            </div>
          </div>
          <HeroMedia />
        </div>
      </section>

      <StatsStrip />

      <section className="section" aria-labelledby="features-title">
        <div className="container">
          <div className="section-head">
            <h2 id="features-title">Why Glob Network</h2>
            <p>Idle hardware does useful work, the people who share it are rewarded, and large models become available to everyone.</p>
          </div>
          <ul className="grid grid-4 feature-cards">
            {FEATURES.map((f) => (
              <li key={f.title} className="card feature-card">
                <span className={`icon-tile${f.tone === 'cyan' ? ' cyan' : ''}`}>
                  <Icon name={f.icon} size={24} />
                </span>
                <h3>{f.title}</h3>
                <p>{f.text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="section how" aria-labelledby="how-title">
        <div className="container how-grid">
          <div>
            <h2 id="how-title">From idle hardware to answers in seconds</h2>
            <p className="how-lead">
              Install the client, pick your limits — CPU 10–80%, memory 20–70%, GPU 0–90% — and your computer joins the network. Sharing pauses on
              battery below 20%.
            </p>
            <Link to="/documentation" hash="how-it-works" className="how-link">
              How it works <Icon name="arrowRight" size={18} />
            </Link>
          </div>
          <ol className="how-steps">
            <li>
              <span>1</span>
              <div>
                <h3>Install the client</h3>
                <p>Windows, macOS or Linux — one download, no configuration.</p>
              </div>
            </li>
            <li>
              <span>2</span>
              <div>
                <h3>Share what you choose</h3>
                <p>Set how much CPU, memory and GPU the network may use.</p>
              </div>
            </li>
            <li>
              <span>3</span>
              <div>
                <h3>Earn GLB tokens</h3>
                <p>Every completed task is credited to your wallet within 24 hours.</p>
              </div>
            </li>
          </ol>
        </div>
      </section>

      <section className="section cta" aria-labelledby="cta-title">
        <div className="container">
          <div className="cta-card">
            <h2 id="cta-title">Ready to join the network?</h2>
            <p>Download the client, share your computer’s spare power and start earning GLB today.</p>
            <div className="btn-row center">
              <Link to="/downloads" className="btn btn-primary btn-lg">
                Download Now
              </Link>
              <Link to="/about" className="btn btn-lg">
                Learn More<span className="visually-hidden"> about Glob Network</span>
              </Link>
            </div>
          </div>
        </div>
      </section>
    </>
  );
}
