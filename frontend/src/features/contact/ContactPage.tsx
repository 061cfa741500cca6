import { useRef, useState, type KeyboardEvent } from 'react';
import { Link } from '@tanstack/react-router';
import { SITE } from 'virtual:glob-head';
import { Icon } from '../../components/Icon';
import { ContactForm } from './ContactForm';
import { TestimonialForm } from './TestimonialForm';
import './contact.css';

type Tab = 'contact' | 'testimonial';
const TABS: { id: Tab; label: string }[] = [
  { id: 'contact', label: 'Contact Form' },
  { id: 'testimonial', label: 'Submit Testimonial' },
];

const FAQ = [
  {
    q: 'How quickly do you reply?',
    a: 'We answer within 24–48 hours on business days. Technical Support questions are handled first.',
  },
  {
    q: 'Which computers can join the network?',
    a: 'Windows 10/11 64-bit, macOS 10.15+ and Ubuntu 20.04+ with at least 8 GB of RAM and a 5+ Mbps connection.',
  },
  {
    q: 'How are GLB rewards calculated?',
    a: 'Each task pays 25 GLB base × difficulty (1.0–3.0) × hardware score (0.5–2.0) — typically 25–150 GLB.',
  },
];

export function ContactPage() {
  const [tab, setTab] = useState<Tab>('contact');
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ contact: null, testimonial: null });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = TABS.findIndex((t) => t.id === tab);
    let next: number;
    if (event.key === 'ArrowRight') next = (index + 1) % TABS.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + TABS.length) % TABS.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = TABS.length - 1;
    else return;
    event.preventDefault();
    const id = TABS[next]!.id;
    setTab(id);
    tabRefs.current[id]?.focus();
  };

  return (
    <>
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">Contact</p>
          <h1>Get in Touch</h1>
          <p className="lead">
            Questions about sharing resources, GLB tokens or a partnership? Send us a message — or tell us about your experience with Glob Network.
          </p>
        </div>
      </section>
      <section className="section contact-section">
        <div className="container contact-grid">
          <div className="card contact-card">
            <div className="tabs" role="tablist" aria-label="Contact options" onKeyDown={onKeyDown}>
              {TABS.map((t) => (
                <button
                  key={t.id}
                  ref={(el) => {
                    tabRefs.current[t.id] = el;
                  }}
                  type="button"
                  role="tab"
                  id={`tab-${t.id}`}
                  aria-selected={tab === t.id}
                  aria-controls={`panel-${t.id}`}
                  tabIndex={tab === t.id ? 0 : -1}
                  className={`tab${tab === t.id ? ' is-active' : ''}`}
                  onClick={() => setTab(t.id)}
                >
                  {t.label}
                </button>
              ))}
            </div>
            <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
              {tab === 'contact' ? <ContactForm /> : <TestimonialForm />}
            </div>
          </div>

          <aside className="contact-aside" aria-label="Other ways to reach us">
            <div className="card">
              <h2 className="aside-title">Contact Information</h2>
              <ul className="contact-list">
                <li>
                  <Icon name="mail" />
                  <div>
                    <strong>Email</strong>
                    <a href={`mailto:${SITE.supportEmail}`}>{SITE.supportEmail}</a>
                  </div>
                </li>
                <li>
                  <Icon name="clock" />
                  <div>
                    <strong>Response time</strong>
                    <span>24–48 hours on business days</span>
                  </div>
                </li>
                <li>
                  <Icon name="pin" />
                  <div>
                    <strong>Address</strong>
                    <span>Glob Network, London, United Kingdom</span>
                  </div>
                </li>
              </ul>
              <h2 className="aside-title">Community</h2>
              <div className="btn-row">
                <a className="btn btn-sm" href={SITE.discord} target="_blank" rel="noopener noreferrer">
                  <Icon name="discord" size={18} />
                  Discord
                </a>
                <a className="btn btn-sm" href={SITE.github} target="_blank" rel="noopener noreferrer">
                  <Icon name="github" size={18} />
                  GitHub
                </a>
              </div>
            </div>

            <div className="card">
              <h2 className="aside-title">Frequently Asked Questions</h2>
              <dl className="faq-list">
                {FAQ.map((item) => (
                  <div key={item.q}>
                    <dt>{item.q}</dt>
                    <dd>{item.a}</dd>
                  </div>
                ))}
              </dl>
              <Link to="/documentation" hash="faq" className="how-link">
                More answers in the FAQ <Icon name="arrowRight" size={18} />
              </Link>
            </div>

            <div className="map-placeholder" role="img" aria-label="Map: Glob Network, London, United Kingdom">
              <div className="map-grid" aria-hidden="true" />
              <span className="map-pin" aria-hidden="true">
                <Icon name="pin" size={28} />
              </span>
              <p>London, United Kingdom</p>
            </div>
          </aside>
        </div>
      </section>
    </>
  );
}
