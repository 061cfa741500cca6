import { memo, useEffect, useState, type ComponentPropsWithoutRef } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CopyButton } from '../../../components/CopyButton';
import { REPLY_TEXT as TEXT } from '../reply-texts';
import './markdown.css';

/**
 * An assistant reply as Markdown (GitHub's flavour: tables, task lists, strikethrough, autolinks). Raw HTML in a reply
 * is never rendered (react-markdown drops it without rehype-raw), URLs pass react-markdown's safe-protocol filter (no
 * `javascript:`), links open in a new tab without access to this page, and images are links, never loaded.
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  const components: Components = {
    a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
    // An image in a reply is shown as a link, never fetched: a model's output must not make the browser call out.
    img: ({ src, alt }) =>
      typeof src === 'string' && src ? (
        <a href={src} target="_blank" rel="noopener noreferrer">
          {alt || src}
        </a>
      ) : (
        <>{alt}</>
      ),
    // Fenced code gets its own block (language, copy, highlighting); inline code stays as it is.
    pre: ({ node: _node, children }) => <>{children}</>,
    code: ({ node: _node, className, children, ...props }) => {
      const language = /language-([\w+#.-]+)/.exec(className ?? '')?.[1];
      const code = String(children ?? '');
      const block = language !== undefined || code.includes('\n');
      if (!block) return <code {...props}>{children}</code>;
      return <CodeBlock code={code.replace(/\n$/, '')} language={language} streaming={streaming} />;
    },
    table: ({ node: _node, ...props }) => (
      <div className="md-table-wrap" tabIndex={0} role="region" aria-label={TEXT.tableLabel}>
        <table {...props} />
      </div>
    ),
  };
  return (
    <div className="assistant-md assistant-msg-content">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

type Highlight = (code: string, language: string | undefined) => string | null;
let highlighter: Promise<Highlight> | null = null;
/** highlight.js and its languages come in their own chunk, fetched when the first code block is complete. */
const loadHighlighter = () => (highlighter ??= import('./highlight').then((m) => m.highlight));

/**
 * A fenced code block: its language, a copy button, and syntax highlighting once the block is complete (while a
 * reply streams, the text grows as plain code, so nothing flickers or jumps when the colours arrive).
 */
function CodeBlock({ code, language, streaming }: { code: string; language: string | undefined; streaming: boolean }) {
  const [html, setHtml] = useState<{ code: string; html: string } | null>(null);
  useEffect(() => {
    if (streaming) return;
    let live = true;
    void loadHighlighter().then((highlight) => {
      const out = highlight(code, language);
      if (live && out !== null) setHtml({ code, html: out });
    });
    return () => {
      live = false;
    };
  }, [code, language, streaming]);
  const codeProps: ComponentPropsWithoutRef<'code'> =
    html?.code === code
      ? // highlight.js escapes the code it is given; its output holds only its own <span class="hljs-…"> elements.
        { dangerouslySetInnerHTML: { __html: html.html } }
      : { children: code };
  return (
    <figure className="md-code">
      <figcaption className="md-code-bar">
        <span className="md-code-lang">{language ?? TEXT.codeLabel}</span>
        <CopyButton
          text={code}
          label={TEXT.copyCode}
          copiedLabel={TEXT.copied}
          failedLabel={TEXT.copyFailed}
          className="assistant-link md-code-copy"
        />
      </figcaption>
      <pre>
        <code className={`hljs${language ? ` language-${language}` : ''}`} {...codeProps} />
      </pre>
    </figure>
  );
}
