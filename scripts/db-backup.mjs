// npm run db:backup [-- <file>]: a pg_dump (custom format) of DATABASE_URL, default .data/backups/glob-<UTC time>.dump.
// npm run db:restore -- <file> [--target <DATABASE_URL>] [--clean]: pg_restore into an empty database, then the ledger check.
// Exit codes: 0 done, 1 failed or refused, 2 usage, 3 restored but the ledger check found problems.
// Passwords never appear on a command line or in the output: they go to pg_dump/pg_restore as PGPASSWORD.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import pg from 'pg';
import { canConnect, embeddedDatabase, fail, log, root } from './lib.mjs';

const usage = `usage:
  npm run db:backup [-- <file>]                                       (default .data/backups/glob-<UTC time>.dump)
  npm run db:restore -- <file> [--target <DATABASE_URL>] [--clean]     (default target: DATABASE_URL)`;

/** The URL with its password replaced by ***, for messages. */
function masked(url) {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/** Environment and connection string for a libpq tool: the password travels in PGPASSWORD, never in argv. */
function libpq(url) {
  const u = new URL(url);
  const env = { ...process.env };
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  u.password = '';
  return { env, dbname: u.toString() };
}

/**
 * DATABASE_URL, else the embedded database `make dev` and `make serve` start when DATABASE_URL is unset (PGlite
 * on 127.0.0.1:PGLITE_PORT, see ensureDatabase in lib.mjs), which only answers while one of them runs.
 */
async function defaultUrl() {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const { port, url } = embeddedDatabase();
  if (!(await canConnect('127.0.0.1', port))) {
    fail(
      `DATABASE_URL is not set, and the embedded database (PGlite, data in .data/pglite) is not running: it is served only ` +
        `while \`make dev\` or \`make serve\` runs. Start one of them in another terminal, or set DATABASE_URL.`,
    );
  }
  log(
    `Using the embedded database on 127.0.0.1:${port} (PGlite, PostgreSQL 18: needs pg_dump/pg_restore 18 or later). Its ` +
      `connections share one session, so the snapshot is consistent only while nothing else writes to it.`,
  );
  return url;
}

/** Runs a PostgreSQL client tool, its errors shown; resolves with its exit code. */
function run(cmd, args, env, stdout = 'inherit') {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', stdout, 'inherit'] });
    child.once('error', (err) => {
      if (err.code === 'ENOENT') {
        fail(`${cmd} not found: install the PostgreSQL client tools (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq)`);
      }
      fail(`${cmd}: ${err.message}`);
    });
    child.once('exit', (code, signal) => done(signal ? 128 : code));
  });
}

/** A path the user typed, relative to where they ran npm (npm runs scripts from the repository root). */
const userPath = (p) => resolve(process.env.INIT_CWD ?? process.cwd(), p);
const shown = (p) => (relative(root, p).startsWith('..') ? p : relative(root, p));

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} kB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

async function backup(args) {
  if (args.length > 1 || args.some((a) => a.startsWith('--'))) {
    console.error(usage);
    process.exit(2);
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  const file = args[0] ? userPath(args[0]) : join(root, '.data', 'backups', `glob-${stamp}.dump`);
  const url = await defaultUrl();
  mkdirSync(dirname(file), { recursive: true });
  // Written under another name and renamed once complete: a backup cut short never looks like a good one.
  const partial = `${file}.partial`;
  const { env, dbname } = libpq(url);
  log(`Backing up ${masked(url)} …`);
  // pg_dump reads every table in one REPEATABLE READ transaction, i.e. from one snapshot: the backup is the database
  // as of the moment it started, every ledger transaction wholly in it or wholly absent, while the API and the
  // worker keep writing (it blocks no reads or writes; only schema changes wait for it).
  const code = await run('pg_dump', ['--format=custom', `--file=${partial}`, `--dbname=${dbname}`], env);
  if (code !== 0) {
    rmSync(partial, { force: true });
    fail(`pg_dump failed (exit ${code}); no backup written. (A "server version mismatch" needs the client tools of the server's version or later.)`);
  }
  renameSync(partial, file);
  log(`Backup written: ${shown(file)} (${size(statSync(file).size)})`);
}

async function tableCount(url) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (err) {
    fail(`Cannot connect to the target ${masked(url)}: ${err.message}. Restore into an existing, empty database (e.g. createdb glob_restored).`);
  }
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p') AND s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg_toast%'`,
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function restore(args) {
  let target;
  let clean = false;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--clean') clean = true;
    else if (args[i] === '--target' && args[i + 1]) target = args[++i];
    else if (args[i].startsWith('--target=')) target = args[i].slice('--target='.length);
    else if (args[i].startsWith('--')) {
      console.error(`Unknown option ${args[i]}\n${usage}`);
      process.exit(2);
    } else files.push(args[i]);
  }
  if (files.length !== 1) {
    console.error(usage);
    process.exit(2);
  }
  const file = userPath(files[0]);
  if (!existsSync(file)) fail(`No such backup: ${file}`);
  target ??= await defaultUrl();
  try {
    new URL(target);
  } catch {
    fail('--target is not a URL (postgres://user:password@host:5432/database)');
  }
  const { env, dbname } = libpq(target);
  // Reads the archive's table of contents first: a file that is not a pg_dump custom-format archive stops here.
  if ((await run('pg_restore', ['--list', file], env, 'ignore')) !== 0) {
    fail(`${shown(file)} is not a readable pg_dump archive (custom format)`);
  }
  const tables = await tableCount(target);
  if (tables > 0 && !clean) {
    fail(
      `The target ${masked(target)} already has ${tables} table(s); refusing to restore over them. Restore into an empty ` +
        `database (createdb <name>, then --target), or add --clean to drop and recreate the backup's objects there.`,
    );
  }
  log(`Restoring ${shown(file)} into ${masked(target)}${clean ? ' (--clean: replacing the backup’s objects)' : ''} …`);
  // One transaction: a failed restore leaves the target as it was. Ownership and privileges are left to the target's
  // user, so a backup of the compose database (user glob) restores on any server.
  const restoreArgs = ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction'];
  if (clean) restoreArgs.push('--clean', '--if-exists');
  const code = await run('pg_restore', [...restoreArgs, `--dbname=${dbname}`, file], env);
  if (code !== 0) fail(`pg_restore failed (exit ${code}); the target is unchanged.`);
  log(`Restored. Checking its ledger (npm run ledger:check) …`);
  const check = await new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', 'ledger:check', '-w', 'backend'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: target },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', (err) => fail(`Could not run the ledger check: ${err.message}`));
    child.once('exit', (c) => done(c));
  });
  if (check !== 0) {
    console.error(`\x1b[31m[glob] Restored, but the ledger check found problems (above).\x1b[0m`);
    process.exit(3);
  }
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'backup') await backup(rest);
else if (command === 'restore') await restore(rest);
else {
  console.error(usage);
  process.exit(2);
}
