import { useSyncExternalStore } from 'react';
import { Link } from '@tanstack/react-router';
import { SITE } from 'virtual:glob-head';
import './brand.css';
import './footer.css';

const noSubscription = () => () => undefined;
const thisYear = () => new Date().getFullYear();
/** While a prerendered page hydrates: the year it was built with (read back from its markup). */
const builtYear = () =>
  Number(typeof document === 'undefined' ? NaN : document.querySelector('[data-copyright-year]')?.getAttribute('data-copyright-year')) || thisYear();

export function Footer() {
  // The current year, also on a page prerendered in an earlier one.
  const year = useSyncExternalStore(noSubscription, thisYear, builtYear);
  return (
    <footer className="site-footer">
      <div className="container">
        <div className="footer-grid">
          <div className="footer-about">
            <Link to="/" className="brand" aria-label="Glob Network home">
              <img src="/logo.svg" alt="" width={32} height={32} loading="lazy" />
              <span>Glob Network</span>
            </Link>
            <p>
              Distributed AI processing: share your GPU, CPU and memory, earn GLB tokens, and use large language models that run across the network.
            </p>
          </div>
          <nav className="footer-col" aria-labelledby="footer-resources">
            <h2 id="footer-resources">Resources</h2>
            <ul>
              <li>
                <Link to="/documentation">Documentation</Link>
              </li>
              <li>
                <Link to="/documentation" hash="getting-started">
                  Getting Started
                </Link>
              </li>
              <li>
                <Link to="/documentation" hash="api">
                  API Reference
                </Link>
              </li>
              <li>
                <Link to="/documentation" hash="faq">
                  FAQ
                </Link>
              </li>
              <li>
                <Link to="/downloads">Downloads</Link>
              </li>
              <li>
                <Link to="/updates">Updates</Link>
              </li>
            </ul>
          </nav>
          <nav className="footer-col" aria-labelledby="footer-community">
            <h2 id="footer-community">Community</h2>
            <ul>
              <li>
                <a href={SITE.discord} target="_blank" rel="noopener noreferrer">
                  Discord
                </a>
              </li>
              <li>
                <a href={SITE.github} target="_blank" rel="noopener noreferrer">
                  GitHub
                </a>
              </li>
              <li>
                <Link to="/blog">Blog</Link>
              </li>
              <li>
                <Link to="/news">AI News</Link>
              </li>
            </ul>
          </nav>
          <nav className="footer-col" aria-labelledby="footer-about">
            <h2 id="footer-about">About</h2>
            <ul>
              <li>
                <Link to="/about">About Us</Link>
              </li>
              <li>
                <Link to="/contact">Contact</Link>
              </li>
              <li>
                <a href={SITE.releasesHost} target="_blank" rel="noopener noreferrer">
                  Release Info
                </a>
              </li>
              <li>
                <a href={`mailto:${SITE.supportEmail}`}>{SITE.supportEmail}</a>
              </li>
            </ul>
          </nav>
        </div>
        <div className="footer-bottom">
          <p data-copyright-year={year}>
            © {year} {SITE.name}. All rights reserved.
          </p>
          <ul className="footer-legal" aria-label="Legal">
            <li>
              <Link to="/privacy-policy">Privacy Policy</Link>
            </li>
            <li>
              <Link to="/terms-of-service">Terms of Service</Link>
            </li>
            <li>
              <Link to="/license">License</Link>
            </li>
            <li>
              <Link to="/account-deletion">Account Deletion</Link>
            </li>
          </ul>
        </div>
      </div>
    </footer>
  );
}
