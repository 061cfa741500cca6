import { accountsHandlers } from './accounts';
import { adminHandlers } from './admin';
import { apiKeysHandlers } from './api-keys';
import { chatHandlers } from './chat';
import { inferenceHandlers } from './inference';
import { nodesHandlers } from './nodes';
import { notificationsHandlers } from './notifications';
import { openaiHandlers } from './openai';
import { securityHandlers } from './security';
import { releaseHostHandlers, siteHandlers } from './site';
import { systemHandlers } from './system';
import { walletHandlers } from './wallet';

/** One handler file per spec tag. */
export const handlersByTag = {
  system: systemHandlers,
  site: siteHandlers,
  accounts: accountsHandlers,
  security: securityHandlers,
  notifications: notificationsHandlers,
  wallet: walletHandlers,
  inference: inferenceHandlers,
  chat: chatHandlers,
  nodes: nodesHandlers,
  'api-keys': apiKeysHandlers,
  openai: openaiHandlers,
  admin: adminHandlers,
};

export const apiHandlers = Object.values(handlersByTag).flat();
export const handlers = [...apiHandlers, ...releaseHostHandlers];
