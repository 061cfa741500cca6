import { accountsHandlers } from './accounts';
import { chatHandlers } from './chat';
import { inferenceHandlers } from './inference';
import { nodesHandlers } from './nodes';
import { notificationsHandlers } from './notifications';
import { releaseHostHandlers, siteHandlers } from './site';
import { systemHandlers } from './system';
import { walletHandlers } from './wallet';

/** One handler file per spec tag. */
export const handlersByTag = {
  system: systemHandlers,
  site: siteHandlers,
  accounts: accountsHandlers,
  notifications: notificationsHandlers,
  wallet: walletHandlers,
  inference: inferenceHandlers,
  chat: chatHandlers,
  nodes: nodesHandlers,
};

export const apiHandlers = Object.values(handlersByTag).flat();
export const handlers = [...apiHandlers, ...releaseHostHandlers];
