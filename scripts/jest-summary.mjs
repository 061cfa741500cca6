#!/usr/bin/env node
// One line from a `jest --json` report: passed and failed tests, then the slowest test files.
//   node scripts/jest-summary.mjs <report.json> <label> [how many slowest files, default 5]
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, label = 'tests', top = '5'] = process.argv.slice(2);
if (!file || !existsSync(file)) {
  console.log(`${label} tests: no report (${file ?? 'none given'}): jest ended before writing it`);
  process.exit(0);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
console.log(`${label} tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
const files = r.testResults
  .map((t) => ({ name: relative(process.cwd(), t.name), s: (t.endTime - t.startTime) / 1000 }))
  .sort((a, b) => b.s - a.s)
  .slice(0, Number(top));
if (files.length) console.log(`slowest files: ${files.map((f) => `${f.name} ${f.s.toFixed(1)} s`).join(', ')}`);
