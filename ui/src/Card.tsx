import { useId, type ReactNode } from 'react';
import '../card.css';

interface Props {
  /** A heading names the card (a section labelled by it); without one the card is a plain box. */
  title?: ReactNode;
  /** The heading's level in the page's outline. */
  level?: 2 | 3;
  className?: string;
  children: ReactNode;
}

/** A bordered surface as the web app's cards look, optionally a titled section. */
export function Card({ title, level = 2, className, children }: Props) {
  const headingId = useId();
  const classes = className ? `ui-card ${className}` : 'ui-card';
  if (title === undefined) return <div className={classes}>{children}</div>;
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <section className={classes} aria-labelledby={headingId}>
      <Heading id={headingId} className="ui-card-title">
        {title}
      </Heading>
      {children}
    </section>
  );
}
