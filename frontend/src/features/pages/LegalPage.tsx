import { Html } from '../../components/Html';
import type { LegalDocument } from '../../content/types';
import './pages.css';

/** Privacy Policy, Terms of Service and License: a table of contents and the numbered sections. */
export function LegalPage({ doc }: { doc: LegalDocument }) {
  return (
    <article className="container legal">
      <header className="page-hero legal-hero">
        <p className="eyebrow">Legal</p>
        <h1>{doc.title}</h1>
        <p className="lead">Effective {doc.effectiveDate}</p>
      </header>
      <div className="legal-layout">
        <nav className="legal-toc" aria-label="Contents">
          <p className="docs-sidebar-title">Contents</p>
          <ol>
            {doc.sections.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`}>{s.heading.replace(/^\d+\.\s*/, '')}</a>
              </li>
            ))}
          </ol>
        </nav>
        <div className="legal-body">
          <Html html={doc.intro} className="prose" />
          {doc.sections.map((s) => (
            <section key={s.id} id={s.id} aria-labelledby={`${s.id}-title`}>
              <h2 id={`${s.id}-title`}>{s.heading}</h2>
              <Html html={s.html} className="prose" />
            </section>
          ))}
        </div>
      </div>
    </article>
  );
}
