/**
 * Syntax highlighting for code blocks (highlight.js's core with the languages replies use most), in a chunk of its
 * own that the assistant loads when it first shows a finished code block.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, c, cpp, csharp, css, go, java, javascript, json, markdown, php, python, ruby, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Longer code is left plain: highlighting it would hold the page for too long on a phone. */
const MAX_CHARS = 100_000;

/** The code as highlight.js's HTML (its input escaped), or null for an unknown language or very long code. */
export function highlight(code: string, language: string | undefined): string | null {
  if (code.length > MAX_CHARS) return null;
  const name = language?.toLowerCase();
  if (name && hljs.getLanguage(name)) return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  if (name) return null;
  return hljs.highlightAuto(code, Object.keys(LANGUAGES)).value;
}
