const TIMELINE = [
  { title: 'Beta Release', when: 'Current', text: 'Desktop clients for Windows, macOS and Linux, and the web app.', current: true },
  { title: 'Mobile Apps', when: 'Q1 2026', text: 'Glob Network on iOS and Android.', current: false },
  { title: 'Stable Release', when: 'Q2 2026', text: 'The production release of the network and its clients.', current: false },
];

/** Where the clients are today and what comes next. */
export function ReleaseTimeline() {
  return (
    <section className="section roadmap" aria-labelledby="roadmap-title">
      <div className="container">
        <div className="section-head">
          <h2 id="roadmap-title">Release Timeline</h2>
          <p>Where the clients are today and what comes next.</p>
        </div>
        <ol className="roadmap-list">
          {TIMELINE.map((step) => (
            <li key={step.title} className={step.current ? 'is-current' : ''}>
              <span className="roadmap-dot" aria-hidden="true" />
              <p className="roadmap-when">{step.when}</p>
              <h3>{step.title}</h3>
              <p>{step.text}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
