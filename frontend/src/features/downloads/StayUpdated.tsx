import { Link } from '@tanstack/react-router';
import { SITE } from 'virtual:glob-head';
import { Icon } from '../../components/Icon';

/** The 'Notify Me When Ready' target: the community and the web app. */
export function StayUpdated() {
  return (
    <section className="section stay-updated" id="stay-updated" aria-labelledby="stay-updated-title">
      <div className="container">
        <div className="card stay-card">
          <div>
            <h2 id="stay-updated-title">Stay Updated</h2>
            <p>
              Be the first to hear about new releases, the mobile apps and the stable release. Join the community, or start using the network in your
              browser today.
            </p>
          </div>
          <div className="btn-row">
            <a className="btn btn-primary" href={SITE.discord} target="_blank" rel="noopener noreferrer">
              <Icon name="discord" size={18} />
              Join Discord
            </a>
            <Link className="btn" to="/app/auth" preload={false}>
              Open Web App
            </Link>
          </div>
        </div>
      </div>
    </section>
  );
}
