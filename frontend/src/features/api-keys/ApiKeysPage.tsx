import constants from '@glob/contract/constants.json';
import { useId, useRef, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiKeyMutations, apiKeyQueries, type ApiKey, type ApiKeyCreated } from '../../api/queries/api-keys';
import { inferenceQueries } from '../../api/queries/inference';
import { copyText } from '../../components/clipboard';
import { CopyButton } from '../../components/CopyButton';
import { formatDateTime, formatGlob } from '../../components/format';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { TableHead } from '../../components/TableHead';
import { useForm } from '../../components/useForm';
import { API_KEYS_TEXTS as T } from './texts';
import './api-keys.css';
import { failureText } from '../../api/errors';

/** The model the examples call, and the reply length each call asks for at most: copying an example never costs more. */
export const EXAMPLE_MODEL = 'glob-tiny-chat';
export const EXAMPLE_MAX_TOKENS = 64;

/** The "Use the API" snippets: this site's /v1 and the user's first key (its prefix until one is copied). */
export const API_SNIPPETS = {
  curl: (origin: string, key: string) =>
    [
      `curl ${origin}/v1/chat/completions \\`,
      `  -H "Authorization: Bearer ${key}" \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -d '{"model": "${EXAMPLE_MODEL}", "max_tokens": ${EXAMPLE_MAX_TOKENS}, "messages": [{"role": "user", "content": "Hello!"}]}'`,
    ].join('\n'),
  javascript: (origin: string, key: string) =>
    [
      `import OpenAI from 'openai';`,
      ``,
      `const client = new OpenAI({ baseURL: '${origin}/v1', apiKey: '${key}' });`,
      `const reply = await client.chat.completions.create({`,
      `  model: '${EXAMPLE_MODEL}',`,
      `  max_tokens: ${EXAMPLE_MAX_TOKENS},`,
      `  messages: [{ role: 'user', content: 'Hello!' }],`,
      `});`,
      `console.log(reply.choices[0].message.content);`,
    ].join('\n'),
  python: (origin: string, key: string) =>
    [
      `from openai import OpenAI`,
      ``,
      `client = OpenAI(base_url="${origin}/v1", api_key="${key}")`,
      `reply = client.chat.completions.create(`,
      `    model="${EXAMPLE_MODEL}",`,
      `    max_tokens=${EXAMPLE_MAX_TOKENS},`,
      `    messages=[{"role": "user", "content": "Hello!"}],`,
      `)`,
      `print(reply.choices[0].message.content)`,
    ].join('\n'),
} as const;
type SnippetLanguage = keyof typeof API_SNIPPETS;

/**
 * The function-calling round trip in each language: one tool offered with tool_choice "auto", the call's arguments
 * read from the answer, and the tool's result sent back as a "tool" turn for the final answer. With "auto" the model
 * may answer in text instead, so the JavaScript and Python examples only run the tool when it was called. The curl one
 * reads the answers with jq.
 */
export const API_TOOLS_SNIPPETS = {
  curl: (origin: string, key: string) =>
    [
      `URL="${origin}/v1/chat/completions"`,
      `AUTH="Authorization: Bearer ${key}"`,
      `TOOLS='[{"type": "function", "function": {"name": "get_weather", "description": "The current weather in a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]'`,
      `ASK='{"role": "user", "content": "What is the weather in Paris?"}'`,
      `MESSAGE=$(curl -s "$URL" -H "$AUTH" -H "Content-Type: application/json" \\`,
      `  -d "{\\"model\\": \\"${EXAMPLE_MODEL}\\", \\"max_tokens\\": ${EXAMPLE_MAX_TOKENS}, \\"messages\\": [$ASK], \\"tools\\": $TOOLS, \\"tool_choice\\": \\"auto\\"}" \\`,
      `  | jq '.choices[0].message')`,
      `echo "$MESSAGE" | jq -r '.tool_calls[0].function.arguments'`,
      `RESULT=$(echo "$MESSAGE" | jq '{role: "tool", tool_call_id: .tool_calls[0].id, content: "{\\"temperature_c\\": 18}"}')`,
      `curl -s "$URL" -H "$AUTH" -H "Content-Type: application/json" \\`,
      `  -d "{\\"model\\": \\"${EXAMPLE_MODEL}\\", \\"max_tokens\\": ${EXAMPLE_MAX_TOKENS}, \\"messages\\": [$ASK, $MESSAGE, $RESULT], \\"tools\\": $TOOLS}" \\`,
      `  | jq -r '.choices[0].message.content'`,
    ].join('\n'),
  javascript: (origin: string, key: string) =>
    [
      `import OpenAI from 'openai';`,
      ``,
      `const client = new OpenAI({ baseURL: '${origin}/v1', apiKey: '${key}' });`,
      `const tools = [{`,
      `  type: 'function',`,
      `  function: {`,
      `    name: 'get_weather',`,
      `    description: 'The current weather in a city',`,
      `    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },`,
      `  },`,
      `}];`,
      `const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];`,
      `let reply = await client.chat.completions.create({ model: '${EXAMPLE_MODEL}', max_tokens: ${EXAMPLE_MAX_TOKENS}, messages, tools, tool_choice: 'auto' });`,
      `const message = reply.choices[0].message;`,
      `if (message.tool_calls) {`,
      `  const call = message.tool_calls[0];`,
      `  const { city } = JSON.parse(call.function.arguments);`,
      `  messages.push(message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify({ city, temperature_c: 18 }) });`,
      `  reply = await client.chat.completions.create({ model: '${EXAMPLE_MODEL}', max_tokens: ${EXAMPLE_MAX_TOKENS}, messages, tools });`,
      `}`,
      `console.log(reply.choices[0].message.content);`,
    ].join('\n'),
  python: (origin: string, key: string) =>
    [
      `import json`,
      `from openai import OpenAI`,
      ``,
      `client = OpenAI(base_url="${origin}/v1", api_key="${key}")`,
      `tools = [{`,
      `    "type": "function",`,
      `    "function": {`,
      `        "name": "get_weather",`,
      `        "description": "The current weather in a city",`,
      `        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},`,
      `    },`,
      `}]`,
      `messages = [{"role": "user", "content": "What is the weather in Paris?"}]`,
      `reply = client.chat.completions.create(model="${EXAMPLE_MODEL}", max_tokens=${EXAMPLE_MAX_TOKENS}, messages=messages, tools=tools, tool_choice="auto")`,
      `message = reply.choices[0].message`,
      `if message.tool_calls:`,
      `    call = message.tool_calls[0]`,
      `    city = json.loads(call.function.arguments)["city"]`,
      `    messages.append(message)`,
      `    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps({"city": city, "temperature_c": 18})})`,
      `    reply = client.chat.completions.create(model="${EXAMPLE_MODEL}", max_tokens=${EXAMPLE_MAX_TOKENS}, messages=messages, tools=tools)`,
      `print(reply.choices[0].message.content)`,
    ].join('\n'),
} as const satisfies Record<SnippetLanguage, (origin: string, key: string) => string>;

/** The snippets (a plain chat call, then tools), one language at a time (curl first), each with a copy button. */
function UseTheApi({ origin, apiKey }: { origin: string; apiKey: string }) {
  const [language, setLanguage] = useState<SnippetLanguage>('curl');
  const model = useQuery(inferenceQueries.models()).data?.find((m) => m.id === EXAMPLE_MODEL);
  const snippet = API_SNIPPETS[language](origin, apiKey);
  const toolsSnippet = API_TOOLS_SNIPPETS[language](origin, apiKey);
  return (
    <section className="card app-section api-keys-use" aria-labelledby="api-keys-use-title">
      <h2 id="api-keys-use-title">{T.useTitle}</h2>
      <p>{T.useText}</p>
      <div className="api-keys-languages" role="group" aria-label={T.languageLabel}>
        {(Object.keys(API_SNIPPETS) as SnippetLanguage[]).map((l) => (
          <button key={l} type="button" className="btn btn-secondary" aria-pressed={l === language} onClick={() => setLanguage(l)}>
            {T.languages[l]}
          </button>
        ))}
      </div>
      {/* Focusable so a keyboard can scroll a long line on a phone. */}
      <pre tabIndex={0} role="region" aria-label={T.useTitle}>
        <code data-testid="api-snippet">{snippet}</code>
      </pre>
      <CopyButton text={snippet} label={T.copySnippet} copiedLabel={T.copied} failedLabel={T.copySnippetFailed} />
      {model && (
        <p className="api-keys-cost" data-testid="api-cost-note">
          {T.costNote(
            EXAMPLE_MAX_TOKENS,
            model.display_name,
            formatGlob(model.price_per_token),
            formatGlob(EXAMPLE_MAX_TOKENS * Number(model.price_per_token)),
          )}
        </p>
      )}
      <h3 id="api-keys-tools-title">{T.toolsTitle}</h3>
      <pre tabIndex={0} role="region" aria-labelledby="api-keys-tools-title">
        <code data-testid="api-tools-snippet">{toolsSnippet}</code>
      </pre>
      <CopyButton text={toolsSnippet} label={T.copyToolsSnippet} copiedLabel={T.copied} failedLabel={T.copySnippetFailed} />
    </section>
  );
}

/** The new key, shown once, with a copy button. */
function CreatedKey({ created, onDone }: { created: ApiKeyCreated; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const titleId = useId();
  return (
    <section className="card api-keys-created" aria-labelledby={titleId}>
      <h2 id={titleId}>{T.createdTitle}</h2>
      <p>{T.createdText}</p>
      <code className="api-keys-secret" data-testid="api-key-secret">
        {created.key}
      </code>
      <div className="api-keys-actions">
        <button type="button" className="btn btn-primary" onClick={() => void copyText(created.key).then((ok) => setCopied(ok ? 'yes' : 'no'))}>
          {T.copy}
        </button>
        <button type="button" className="btn" onClick={onDone}>
          {T.done}
        </button>
        <span role="status">{copied === 'yes' ? T.copied : copied === 'no' ? T.copyFailed : ''}</span>
      </div>
    </section>
  );
}

function KeyRow({ k, onRevoke }: { k: ApiKey; onRevoke: (k: ApiKey) => void }) {
  return (
    <tr data-testid="api-key-row">
      <th scope="row">{k.name}</th>
      <td>
        <code>{k.prefix}…</code>
      </td>
      <td>{formatDateTime(k.created_at)}</td>
      <td>{k.last_used_at ? formatDateTime(k.last_used_at) : T.never}</td>
      <td data-testid="api-key-tokens">{k.tokens.toLocaleString('en-US')}</td>
      <td data-testid="api-key-spent">{formatGlob(k.spent)}</td>
      <td>{k.daily_limit === null ? T.noLimit : `${formatGlob(k.spent_today)} / ${formatGlob(k.daily_limit)}`}</td>
      <td>
        <button type="button" className="btn btn-danger" onClick={() => onRevoke(k)}>
          {T.revoke}
        </button>
      </td>
    </tr>
  );
}

/**
 * "API keys": create a named key (shown once, with an optional daily limit), the list with each key's usage, revoke
 * with a confirmation, and how to call the API, tools included (curl, JavaScript and Python, with this site's /v1).
 */
export function ApiKeysPage() {
  const list = useQuery(apiKeyQueries.list());
  const create = useMutation(apiKeyMutations.create());
  const revoke = useMutation(apiKeyMutations.revoke());
  // No validate: the browser checks these fields (required, min, step) before the form submits.
  const { values, set, reset, onSubmit, busy } = useForm({
    initial: { name: '', limit: '' },
    busy: create.isPending,
    onValid: ({ name, limit }) =>
      create.mutate({ name: name.trim(), ...(limit.trim() ? { daily_limit: Number(limit) } : {}) }, { onSuccess: () => reset() }),
  });
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const ids = { name: useId(), limit: useId() };

  const keys = list.data ?? [];
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  const exampleKey = create.data?.key ?? (keys.at(-1) ? `${keys.at(-1)!.prefix}…` : 'glb_sk_…');

  return (
    <div className="app-page api-keys">
      <header className="app-page-head">
        <h1 ref={heading} tabIndex={-1}>
          {T.title}
        </h1>
        <p>{T.intro}</p>
      </header>

      <form className="card api-keys-form" onSubmit={onSubmit}>
        <label htmlFor={ids.name}>{T.nameLabel}</label>
        <input
          className="input"
          id={ids.name}
          value={values.name}
          onChange={(e) => set('name', e.target.value)}
          placeholder={T.namePlaceholder}
          maxLength={constants.fieldLimits.ApiKeyCreate.name.maxLength}
          required
        />
        <label htmlFor={ids.limit}>{T.limitLabel}</label>
        <input
          className="input"
          id={ids.limit}
          value={values.limit}
          onChange={(e) => set('limit', e.target.value)}
          inputMode="decimal"
          type="number"
          min="0.001"
          step="0.001"
        />
        <button type="submit" className="btn btn-primary" disabled={busy || !values.name.trim()}>
          {busy ? T.creating : T.createButton}
        </button>
        {create.isError ? (
          <p className="alert alert-error" role="alert">
            {failureText(create.error, T.actionFailed)}
          </p>
        ) : null}
      </form>

      {create.data ? <CreatedKey created={create.data} onDone={() => create.reset()} /> : null}

      <section className="app-section" aria-labelledby="api-keys-list-title">
        <h2 id="api-keys-list-title">{T.listLabel}</h2>
        {list.isLoading ? (
          <p role="status">{T.loading}</p>
        ) : list.isError && !list.data ? (
          <p className="alert alert-error" role="alert">
            {T.loadError}
          </p>
        ) : keys.length === 0 ? (
          <p>{T.empty}</p>
        ) : (
          <div className="api-keys-table-wrap">
            <table className="api-keys-table">
              <TableHead columns={T.columns} action={T.revoke} />
              <tbody>
                {keys.map((k) => (
                  <KeyRow key={k.id} k={k} onRevoke={setRevoking} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <UseTheApi origin={origin} apiKey={exampleKey} />

      {revoking ? (
        <ConfirmDialog
          title={T.revokeTitle}
          name={revoking.name}
          text={T.revokeText}
          confirmLabel={T.revoke}
          busyLabel={T.revoking}
          cancelLabel={T.cancel}
          busy={revoke.isPending}
          error={revoke.isError ? failureText(revoke.error, T.actionFailed) : null}
          onConfirm={() =>
            revoke.mutate(revoking.id, {
              onSuccess: () => {
                setRevoking(null);
                heading.current?.focus();
              },
            })
          }
          onClose={() => {
            revoke.reset();
            setRevoking(null);
          }}
        />
      ) : null}
    </div>
  );
}
