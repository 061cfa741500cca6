import { createFileRoute } from '@tanstack/react-router';
import { AssistantPage } from '../../../features/assistant/AssistantPage';
import { claimChatCache } from '../../../features/assistant/conversation';

export const Route = createFileRoute('/app/_shell/assistant')({
  beforeLoad: claimChatCache,
  component: AssistantPage,
});
