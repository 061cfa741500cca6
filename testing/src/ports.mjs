import { createServer } from 'node:net';

/** @type {typeof import('./index.mjs').freePort} */
export const freePort = ({ everyInterface = false } = {}) =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    const listening = () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    };
    // No host: Node listens on the wildcard address (IPv6's, else IPv4's).
    if (everyInterface) server.listen(0, listening);
    else server.listen(0, '127.0.0.1', listening);
  });
