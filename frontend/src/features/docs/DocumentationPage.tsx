import { useEffect, useState } from 'react';
import { Html } from '../../components/Html';
import { DOC_SECTIONS } from '../../content/docs';
import './docs.css';

/** /documentation: sidebar navigation and one section per anchor (the footer's #api included). */
export function DocumentationPage() {
  const [active, setActive] = useState<string>(DOC_SECTIONS[0]?.id ?? '');

  // Highlights the section being read.
  useEffect(() => {
    if (typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        const visible = entries.filter((e) => e.isIntersecting).sort((a, b) => a.boundingClientRect.top - b.boundingClientRect.top);
        if (visible[0]) setActive(visible[0].target.id);
      },
      { rootMargin: '-80px 0px -65% 0px' },
    );
    DOC_SECTIONS.forEach((s) => {
      const el = document.getElementById(s.id);
      if (el) observer.observe(el);
    });
    return () => observer.disconnect();
  }, []);

  // A deep link (/documentation#faq) lands on its section once the page has rendered.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView();
  }, []);

  return (
    <>
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">Documentation</p>
          <h1>Glob Network Documentation</h1>
          <p className="lead">Everything you need to share your computer with the network, earn GLB tokens and build on the Glob Network API.</p>
        </div>
      </section>
      <div className="container docs-layout">
        <nav className="docs-sidebar" aria-label="Documentation">
          <p className="docs-sidebar-title">On this page</p>
          <ul>
            {DOC_SECTIONS.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`} className={active === s.id ? 'is-active' : undefined} aria-current={active === s.id ? 'location' : undefined}>
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="docs-content">
          {DOC_SECTIONS.map((s) => (
            <section key={s.id} id={s.id} className="docs-section" aria-labelledby={`${s.id}-title`}>
              <h2 id={`${s.id}-title`}>
                <a href={`#${s.id}`} className="docs-anchor">
                  {s.title}
                </a>
              </h2>
              <Html html={s.html} className="prose" />
            </section>
          ))}
        </div>
      </div>
    </>
  );
}
