import { createFileRoute } from '@tanstack/react-router';
import { AssistantPage } from '../../../features/assistant/AssistantPage';

export const Route = createFileRoute('/app/_shell/assistant')({
  // beforeLoad stays in the entry chunk: what it runs is fetched with the assistant, not with every page.
  beforeLoad: async () => (await import('../../../features/assistant/conversation')).claimChatCache(),
  component: AssistantPage,
});
