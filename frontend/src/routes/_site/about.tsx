import { Link, createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/about';
import noscript from 'virtual:glob-noscript/about';
import { Html } from '../../components/Html';
import { Icon, type IconName } from '../../components/Icon';
import { PageHead } from '../../components/PageHead';
import { ABOUT } from '../../content/about';
import '../../features/pages/pages.css';

export const Route = createFileRoute('/_site/about')({
  staticData: { dots: 15 },
  component: AboutPage,
});

const TRUST_ICONS: IconName[] = ['shield', 'bolt', 'token', 'users'];

/** Vision and mission, the problem, the team, trust cards and the journey. */
function AboutPage() {
  return (
    <>
      <PageHead page={head} noscript={noscript} />
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">About</p>
          <h1>About Glob Network</h1>
          <p className="lead">Powerful AI, run and shared by the people who contribute the computing power behind it.</p>
        </div>
      </section>

      <section className="section" style={{ paddingTop: 24 }} aria-label="Vision and mission">
        <div className="container about-split">
          <div className="card">
            <span className="icon-tile">
              <Icon name="globe" />
            </span>
            <h2 style={{ fontSize: '1.4rem' }}>Our Vision</h2>
            <p className="about-quote">{ABOUT.vision}</p>
          </div>
          <div className="card">
            <span className="icon-tile cyan">
              <Icon name="rocket" />
            </span>
            <h2 style={{ fontSize: '1.4rem' }}>Our Mission</h2>
            <p className="about-quote">{ABOUT.mission}</p>
          </div>
        </div>
      </section>

      <section className="section" aria-label="The problem and our solution">
        <div className="container about-split">
          <div>
            <h2>{ABOUT.problem.title}</h2>
            <Html html={ABOUT.problem.html} className="prose" />
          </div>
          <div>
            <h2>{ABOUT.solution.title}</h2>
            <Html html={ABOUT.solution.html} className="prose" />
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="team-title">
        <div className="container">
          <div className="section-head">
            <h2 id="team-title">Our Team</h2>
            <p>Glob Network is built and operated from the United Kingdom.</p>
          </div>
          {ABOUT.team.map((member) => (
            <div key={member.role} className="card team-card">
              <span className="avatar" aria-hidden="true">
                GN
              </span>
              <div>
                <h3>{member.role}</h3>
                <p>{member.bio}</p>
                <address className="team-address">
                  <Icon name="pin" size={18} />
                  {member.address}
                </address>
              </div>
            </div>
          ))}
        </div>
      </section>

      <section className="section" aria-labelledby="trust-title">
        <div className="container">
          <div className="section-head">
            <h2 id="trust-title">Why Trust Us</h2>
          </div>
          <ul className="grid grid-4 trust-cards">
            {ABOUT.trustCards.map((card, i) => (
              <li key={card.title} className="card">
                <span className={`icon-tile${i % 2 ? ' cyan' : ''}`}>
                  <Icon name={TRUST_ICONS[i] ?? 'shield'} />
                </span>
                <h3>{card.title}</h3>
                <p>{card.text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="section" aria-labelledby="journey-title">
        <div className="container">
          <div className="section-head">
            <h2 id="journey-title">Our Journey</h2>
          </div>
          <ol className="journey">
            {ABOUT.journey.map((step) => (
              <li key={step.date} className={step.current ? 'is-current' : undefined}>
                <p className="journey-date">{step.date}</p>
                <h3>{step.title}</h3>
                <p>{step.text}</p>
              </li>
            ))}
          </ol>
          <div className="btn-row center" style={{ marginTop: 40 }}>
            <Link to="/downloads" className="btn btn-primary">
              Download Client
            </Link>
            <Link to="/contact" className="btn">
              Contact Us
            </Link>
          </div>
        </div>
      </section>
    </>
  );
}
