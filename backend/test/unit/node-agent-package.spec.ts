import { loadConfig } from '../../src/config/config';
import { NodeAgentPackageService } from '../../src/modules/nodes/node-agent-package.service';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/glob', NODE_ENV: 'test', NODE_AGENT_PACKAGE: '/nonexistent/glob-node-0.0.0.tgz' };
const service = (env: Record<string, string>) => new NodeAgentPackageService(loadConfig({ ...base, ...env }));
const agent = { version: '0.1.0', url: 'https://api.example/api/nodes/agent/glob-node-0.1.0.tgz', sha256: 'ab'.repeat(32), size_bytes: 1 };

describe('the pairing command', () => {
  it('runs the package the API serves, against the API’s own URL (not the web app’s, which under make dev is its dev server)', () => {
    const s = service({ WEB_ORIGIN: 'http://localhost:5173', PUBLIC_API_URL: 'https://api.example/' });
    expect(s.command('glb_join_x', agent)).toBe(
      'npx --yes --package https://api.example/api/nodes/agent/glob-node-0.1.0.tgz glob-node --api https://api.example --join-token glb_join_x',
    );
  });

  it('names the published package once NODE_AGENT_NPM_NAME is set, and then serves none', async () => {
    const s = service({ PUBLIC_WEB_URL: 'https://globnetwork.io', NODE_AGENT_NPM_NAME: 'glob-node@0.2.0' });
    expect(await s.describe()).toBeNull();
    expect(s.command('glb_join_x', null)).toBe('npx --yes glob-node@0.2.0 --api https://globnetwork.io --join-token glb_join_x');
    expect(() => loadConfig({ ...base, NODE_AGENT_NPM_NAME: 'not a name' })).toThrow(/NODE_AGENT_NPM_NAME/);
  });
});
