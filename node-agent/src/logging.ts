/**
 * The agent's log: one JSON object per line (pino: `level`, `time`, `msg`, and fields such as the job's `job_id` and
 * `request_id`, the id of the API request that asked for the reply) for log collectors and services, or short
 * human lines (`12:04:05 …`) in a terminal. `--log-format auto` (the default) picks by whether stdout is a terminal.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino, stdTimeFunctions, type DestinationStream } from 'pino';

/** What a line may carry besides its text. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;
export type Log = (line: string, fields?: LogFields) => void;

export type LogFormat = 'auto' | 'json' | 'text';

/** The fields of a job's lines: its id and the id of the request behind it (when the platform gave one). */
export const jobFields = (job: { job_id: string; request_id?: string }): LogFields => ({
  job_id: job.job_id,
  ...(job.request_id ? { request_id: job.request_id } : {}),
});

/** A count and its noun, for log lines: `1 token`, `3 tokens`. */
export const plural = (n: number, word: string, words = `${word}s`): string => `${n} ${n === 1 ? word : words}`;

/** A clock time and the line; a job's line ends with its request id, so it can be found in the platform's logs. */
export function textLine(line: string, fields: LogFields | undefined, now = new Date()): string {
  const hh = String(now.getHours()).padStart(2, '0');
  const mm = String(now.getMinutes()).padStart(2, '0');
  const ss = String(now.getSeconds()).padStart(2, '0');
  return `${hh}:${mm}:${ss} ${line}${fields?.request_id ? ` (request ${fields.request_id})` : ''}`;
}

/**
 * The agent's log function. JSON lines are written synchronously to stdout (or `destination`): no worker thread, so
 * the bundled agent needs nothing beside its one file, and the last lines before an exit are never lost.
 */
export function createLog(format: LogFormat, o: { tty?: boolean; destination?: DestinationStream } = {}): Log {
  const json = format === 'json' || (format === 'auto' && !(o.tty ?? process.stdout.isTTY));
  if (!json) return (line, fields) => console.log(textLine(line, fields));
  const logger = pino(
    {
      name: 'glob-node',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    o.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return (line, fields) => logger.info(fields ?? {}, line);
}

/** Past this size the log file starts afresh, its previous copy kept beside it (`.1`). */
const LOG_FILE_MAX_BYTES = 5 * 1024 * 1024;

/**
 * `log`, and every line also appended to `file` with its date and time: the desktop app started at login has no
 * terminal, so its file is the only place its owner can read what it did. Kept private to the user (mode 0600: the
 * control panel's address is in it); a line that cannot be written is not worth stopping the node for.
 */
export function withLogFile(log: Log, file: string, maxBytes = LOG_FILE_MAX_BYTES): Log {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    if (statSync(file).size > maxBytes) renameSync(file, `${file}.1`);
  } catch {
    // No file yet.
  }
  return (line, fields) => {
    log(line, fields);
    try {
      appendFileSync(file, `${new Date().toISOString()} ${line}${fields?.request_id ? ` (request ${fields.request_id})` : ''}\n`, { mode: 0o600 });
    } catch {
      // A full or read-only disk: the line still went to stdout.
    }
  };
}
