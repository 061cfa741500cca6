import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { components } from '@glob/contract';
import { api } from './api';

type Stats = components['schemas']['PlatformStats'];

/** Placeholder page until the marketing site and web app land: proves the generated client end to end. */
function App() {
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.GET('/api/stats/platform').then(({ data, error: err, response }) => {
      if (data) setStats(data);
      else setError(err?.message ?? `HTTP ${response.status}: ${response.statusText}`);
    }, () => setError('The API is not reachable.'));
  }, []);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '4rem auto', padding: '0 1rem' }}>
      <h1>Glob Network</h1>
      <p>Share your GPU, CPU and memory, earn GLOB tokens, and use the network's language models.</p>
      {stats && (
        <ul aria-label="Network statistics">
          <li>Active Users: {stats.active_users}</li>
          <li>Tasks Processed: {stats.total_tasks}</li>
          <li>Data Processed: {stats.data_processed_gb} GB</li>
        </ul>
      )}
      {error && <p role="alert">{error}</p>}
      <p>
        <a href="/api/docs">API documentation</a>
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
